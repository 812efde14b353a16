/// Attune's public API: Core Bluetooth-shaped central and peripheral managers.
public enum Attune {}
