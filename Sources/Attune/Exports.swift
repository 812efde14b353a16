// The public API speaks in addresses, UUIDs, ATT error codes and GATT definitions from
// the lower layers; re-exporting them spares every user extra imports. Attune's own
// `Service`, `Characteristic` and `Descriptor` (the remote tree, like CBService) shadow
// GATT's aliases of the same names for local definitions.
@_exported import ATT
@_exported import GATT
@_exported import HCI
