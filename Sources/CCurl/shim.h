#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
// CURL_STRICTER makes CURL and CURLM distinct incomplete types instead of `void`, so Swift
// cannot mix an easy handle up with a multi handle.
#define CURL_STRICTER
#include <curl/curl.h>

// Swift cannot call C variadic functions, so every use of curl_easy_setopt, curl_easy_getinfo
// and curl_multi_setopt goes through one of these typed wrappers. Each passes exactly the C
// type libcurl documents for that kind of option.

/// curl_easy_setopt for options that take a `long`.
static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a `curl_off_t`.
static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a C string (libcurl copies it, except POSTFIELDS).
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a raw pointer (PRIVATE, WRITEDATA, HEADERDATA,
/// POSTFIELDS, ERRORBUFFER).
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for options that take a header list (HTTPHEADER).
static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for WRITEFUNCTION and HEADERFUNCTION (both have the write callback shape).
static inline CURLcode ccurl_easy_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

/// curl_easy_setopt for OPENSOCKETFUNCTION (the transport counts the sockets it opens).
static inline CURLcode ccurl_easy_setopt_opensocket_function(CURL *handle, curl_opensocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, value);
}

/// curl_easy_setopt for CLOSESOCKETFUNCTION (and the count goes down when libcurl closes one).
static inline CURLcode ccurl_easy_setopt_closesocket_function(CURL *handle, curl_closesocket_callback value) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, value);
}

/// curl_easy_getinfo for `long` answers (RESPONSE_CODE, OS_ERRNO, HTTP_VERSION).
static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_easy_getinfo for `curl_off_t` answers (the *_T timing and size infos).
static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_easy_getinfo for pointer answers (PRIVATE).
static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

/// curl_multi_setopt for options that take a `long`.
static inline CURLMcode ccurl_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

/// CURL_GLOBAL_DEFAULT is a macro expression; Swift sees this constant instead.
static inline long ccurl_global_default_flags(void) {
    return CURL_GLOBAL_DEFAULT;
}

/// CURLVERSION_NOW is a macro alias of an enum constant that Swift does not import.
static inline curl_version_info_data *ccurl_version_info(void) {
    return curl_version_info(CURLVERSION_NOW);
}

/// The result code carried by a CURLMSG_DONE message (a union member in C).
static inline CURLcode ccurl_message_result(const CURLMsg *message) {
    return message->data.result;
}

#endif
