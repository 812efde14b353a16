/// The GATT layer: attribute database, server engine and client engine, all sans-I/O.
public enum GATT {}
