#ifndef ATTUNE_CCRYPTO_SHIM_H
#define ATTUNE_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/obj_mac.h>
#endif
