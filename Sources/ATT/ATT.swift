/// The ATT layer: the PDU codec and the sans-I/O bearer (Core Spec 5.4, Vol 3, Part F).
public enum ATT {}
