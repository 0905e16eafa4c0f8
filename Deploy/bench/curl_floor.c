/*
 * The libcurl floor for benchmark part 1: the same broadcasts as scorecast's APNs client,
 * driven through libcurl's multi interface the way libcurl recommends for HTTP/2 load, in C
 * with nothing else in the way. Compiled and run by scorecast-bench in the same run:
 *
 *   gcc -O2 -o curl-floor Deploy/bench/curl_floor.c -lcurl
 *   curl-floor -n REQUESTS -c CONNECTIONS -m STREAMS -d BODYFILE --cacert CA [-H 'name: value']... URL
 *
 * One multi handle on one thread: CURLPIPE_MULTIPLEX, CURLMOPT_MAX_HOST_CONNECTIONS,
 * CURLMOPT_MAX_CONCURRENT_STREAMS, CURLOPT_PIPEWAIT; CONNECTIONS x STREAMS transfers in flight,
 * easy handles and the header list reused, the body passed without a copy (POSTFIELDS), the
 * answer discarded by a write callback. Prints one line:
 *   succeeded N failed N seconds S
 * and, when some failed, a second one counting them by libcurl result and HTTP status.
 */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t discard(char *data, size_t size, size_t count, void *user) {
    (void)data; (void)user;
    return size * count;
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static char *read_file(const char *path, long *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    *length = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *bytes = malloc((size_t)*length + 1);
    if (bytes && fread(bytes, 1, (size_t)*length, file) != (size_t)*length) { free(bytes); bytes = NULL; }
    fclose(file);
    return bytes;
}

static void prepare(CURL *easy, const char *url, struct curl_slist *headers, const char *body, long length, const char *ca) {
    curl_easy_setopt(easy, CURLOPT_URL, url);
    curl_easy_setopt(easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(easy, CURLOPT_PIPEWAIT, 1L);
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(easy, CURLOPT_CAINFO, ca);
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, length);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, discard);
}

int main(int argc, char **argv) {
    long requests = 0, connections = 1, streams = 100;
    const char *body_path = NULL, *ca = NULL, *url = NULL;
    struct curl_slist *headers = curl_slist_append(NULL, "Accept:");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) requests = atol(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc) connections = atol(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) streams = atol(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) body_path = argv[++i];
        else if (!strcmp(argv[i], "--cacert") && i + 1 < argc) ca = argv[++i];
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) headers = curl_slist_append(headers, argv[++i]);
        else url = argv[i];
    }
    long length = 0;
    char *body = body_path ? read_file(body_path, &length) : NULL;
    if (requests <= 0 || connections <= 0 || streams <= 0 || !body || !ca || !url) {
        fprintf(stderr, "usage: curl-floor -n N -c C -m M -d BODYFILE --cacert CA [-H header]... URL\n");
        return 2;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 1;
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, streams);

    long in_flight_cap = connections * streams;
    CURL **handles = calloc((size_t)in_flight_cap, sizeof(CURL *));
    long started = 0, succeeded = 0, failed = 0, running_count = 0;
    static long failures_by_result[128], failures_by_status[600];
    double began = now_seconds();
    for (long i = 0; i < in_flight_cap && started < requests; i++) {
        handles[i] = curl_easy_init();
        prepare(handles[i], url, headers, body, length, ca);
        curl_multi_add_handle(multi, handles[i]);
        started++;
        running_count++;
    }
    while (running_count > 0) {
        int still = 0;
        curl_multi_perform(multi, &still);
        CURLMsg *message;
        int queued;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *easy = message->easy_handle;
            long status = 0;
            curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
            if (message->data.result == CURLE_OK && status >= 200 && status < 300) {
                succeeded++;
            } else {
                failed++;
                /* Why, counted by libcurl result and HTTP status, for the second line. */
                int code = (int)message->data.result;
                if (code >= 0 && code < 128) failures_by_result[code]++;
                if (status > 0 && status < 600) failures_by_status[status]++;
            }
            curl_multi_remove_handle(multi, easy);
            running_count--;
            if (started < requests) {
                /* The same handle, options kept: only re-added. */
                curl_multi_add_handle(multi, easy);
                started++;
                running_count++;
            }
        }
        if (running_count > 0) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    double seconds = now_seconds() - began;
    printf("succeeded %ld failed %ld seconds %.6f\n", succeeded, failed, seconds);
    if (failed > 0) {
        printf("failures:");
        for (int code = 0; code < 128; code++)
            if (failures_by_result[code]) printf(" curl %d (%s) x%ld", code, curl_easy_strerror((CURLcode)code), failures_by_result[code]);
        for (int status = 0; status < 600; status++)
            if (failures_by_status[status]) printf(" status %d x%ld", status, failures_by_status[status]);
        printf("\n");
    }
    for (long i = 0; i < in_flight_cap; i++) if (handles[i]) curl_easy_cleanup(handles[i]);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    free(handles);
    free(body);
    curl_global_cleanup();
    return 0;
}
