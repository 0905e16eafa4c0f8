#ifndef CTHREADNAME_SHIM_H
#define CTHREADNAME_SHIM_H
// Names the calling thread for the kernel (top -H, ps -L, perf, /proc/<pid>/task/<tid>/comm).
// Foundation's Thread.name reaches the kernel on Linux only when the new thread has been
// registered by the time it sets it, a race it sometimes loses; pthread_setname_np is
// declared here because Swift's Glibc module hides the GNU extensions.
#include <pthread.h>
#include <string.h>

#if defined(__linux__)
extern int pthread_setname_np(pthread_t thread, const char *name);
#endif

/// Names the calling thread; names over 15 bytes (the kernel's limit) are cut to 15.
/// Returns 0, or the error pthread_setname_np gave.
static inline int scorecast_name_this_thread(const char *name) {
#if defined(__linux__)
    char shortened[16];
    strncpy(shortened, name, 15);
    shortened[15] = '\0';
    return pthread_setname_np(pthread_self(), shortened);
#else
    (void)name;
    return 0;
#endif
}

#endif
