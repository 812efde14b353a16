#ifndef ATTUNE_CYAML_SHIM_H
#define ATTUNE_CYAML_SHIM_H
#include <yaml.h>
#endif
