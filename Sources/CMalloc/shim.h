#ifndef CMALLOC_SHIM_H
#define CMALLOC_SHIM_H
// glibc's malloc statistics (mallinfo2), which Swift's Glibc module does not include. Empty
// where there is no glibc, so the module still builds there.
#include <stddef.h>
#if defined(__linux__) && __has_include(<malloc.h>)
#include <malloc.h>
#endif

#endif
