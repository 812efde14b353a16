// LinkSecurity lives in ATT, below the transports that report it; re-exported so that
// `import GATT` keeps bringing it in with the permissions it is checked against.
@_exported import struct ATT.LinkSecurity
