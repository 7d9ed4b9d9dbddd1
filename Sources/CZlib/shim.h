#ifndef SHIPLANE_CZLIB_SHIM_H
#define SHIPLANE_CZLIB_SHIM_H
#include <zlib.h>
#endif
