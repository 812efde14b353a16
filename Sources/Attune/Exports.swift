// The public API speaks in addresses, UUIDs and ATT error codes from the lower layers;
// re-exporting them spares every user two extra imports.
@_exported import ATT
@_exported import HCI
