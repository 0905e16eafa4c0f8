#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#define CURL_STRICTER
#include <curl/curl.h>
#endif
