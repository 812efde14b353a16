// The public API speaks in addresses, UUIDs, ATT error codes and GATT definitions from
// the lower layers; re-exporting them spares every user extra imports. Attune's own
// `Service`, `Characteristic` and `Descriptor` (the remote tree, like CBService) shadow
// GATT's aliases of the same names for local definitions.
@_exported import ATT
@_exported import GATT
@_exported import HCI
// `tcp:HOST:PORT`, `unix:PATH`, `serial:PATH[@BAUD]` and `user:hciN`, as the userland host
// opens them: one type for the CLI, the public API and the host.
@_exported import enum Transport.H4Endpoint
// The capture the managers' `snoop:` option writes, so users open one without importing
// Capture themselves.
@_exported import class Capture.SnoopFile
