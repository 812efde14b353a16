#ifndef ATTUNE_CCRYPTO_SHIM_H
#define ATTUNE_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#endif
