#ifndef CNGHTTP2_SHIM_H
#define CNGHTTP2_SHIM_H
#include <nghttp2/nghttp2.h>
// The simulator's HTTP/2 servers run their own epoll loops; Swift's Glibc module map does not
// cover these two Linux headers, so they come in through this leaf.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
