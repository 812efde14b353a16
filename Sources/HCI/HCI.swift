/// The HCI layer: HCI packet codec, ACL reassembly, L2CAP basic frames and advertising data.
public enum HCI {}
