#ifndef ATTUNE_CBLUEZ_SHIM_H
#define ATTUNE_CBLUEZ_SHIM_H
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>
#endif
