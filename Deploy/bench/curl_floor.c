/*
 * The libcurl floor for benchmark part 1: the same broadcasts as scorecast's APNs client,
 * driven through libcurl's multi interface the way libcurl recommends for HTTP/2 load, in C
 * with nothing else in the way. Compiled and run by scorecast-bench in the same run:
 *
 *   gcc -O2 -o curl-floor Deploy/bench/curl_floor.c -lcurl
 *   curl-floor -n REQUESTS -c CONNECTIONS -m STREAMS -d BODYFILE --cacert CA [-H 'name: value']... [-u NAME] URL
 *
 * One multi handle on one thread: CURLPIPE_MULTIPLEX, CURLMOPT_MAX_HOST_CONNECTIONS,
 * CURLMOPT_MAX_CONCURRENT_STREAMS, CURLOPT_PIPEWAIT; CONNECTIONS x STREAMS transfers in flight,
 * easy handles and the header list reused, the body passed without a copy (POSTFIELDS), the
 * answer discarded by a write callback. With -u NAME every request also carries header NAME with
 * a fresh lowercase UUID (the device API's `apns-id`, which our client and aioapns send with
 * every push): each handle has its own header list whose last line is rewritten in place
 * before the handle is added again. Prints one line:
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

/* xorshift64*: ids need to be distinct and well-formed, not unpredictable. */
static unsigned long long next_random(unsigned long long *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* Writes a version-4 UUID in lowercase canonical form (36 characters) at `out`. */
static void write_uuid(char *out, unsigned long long *state) {
    static const char hex[] = "0123456789abcdef";
    unsigned char bytes[16];
    unsigned long long high = next_random(state), low = next_random(state);
    for (int i = 0; i < 8; i++) { bytes[i] = (unsigned char)(high >> (8 * i)); bytes[8 + i] = (unsigned char)(low >> (8 * i)); }
    bytes[6] = (unsigned char)((bytes[6] & 0x0f) | 0x40);
    bytes[8] = (unsigned char)((bytes[8] & 0x3f) | 0x80);
    int at = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out[at++] = '-';
        out[at++] = hex[bytes[i] >> 4];
        out[at++] = hex[bytes[i] & 0x0f];
    }
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
    const char *body_path = NULL, *ca = NULL, *url = NULL, *unique_header = NULL;
    struct curl_slist *headers = curl_slist_append(NULL, "Accept:");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) requests = atol(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc) connections = atol(argv[++i]);
        else if (!strcmp(argv[i], "-m") && i + 1 < argc) streams = atol(argv[++i]);
        else if (!strcmp(argv[i], "-d") && i + 1 < argc) body_path = argv[++i];
        else if (!strcmp(argv[i], "--cacert") && i + 1 < argc) ca = argv[++i];
        else if (!strcmp(argv[i], "-H") && i + 1 < argc) headers = curl_slist_append(headers, argv[++i]);
        else if (!strcmp(argv[i], "-u") && i + 1 < argc) unique_header = argv[++i];
        else url = argv[i];
    }
    long length = 0;
    char *body = body_path ? read_file(body_path, &length) : NULL;
    if (requests <= 0 || connections <= 0 || streams <= 0 || !body || !ca || !url
        || (unique_header && (!*unique_header || strlen(unique_header) > 64))) {
        fprintf(stderr, "usage: curl-floor -n N -c C -m M -d BODYFILE --cacert CA [-H header]... [-u NAME] URL\n");
        return 2;
    }
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return 1;
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, connections);
    curl_multi_setopt(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, streams);

    long in_flight_cap = connections * streams;
    CURL **handles = calloc((size_t)in_flight_cap, sizeof(CURL *));
    /* With -u: each handle's own list (the shared lines, then NAME: <uuid>) and that last line's id. */
    struct curl_slist **lists = calloc((size_t)in_flight_cap, sizeof(struct curl_slist *));
    char **ids = calloc((size_t)in_flight_cap, sizeof(char *));
    unsigned long long random_state = 0x9e3779b97f4a7c15ULL ^ (unsigned long long)now_seconds();
    long started = 0, succeeded = 0, failed = 0, running_count = 0;
    static long failures_by_result[128], failures_by_status[600];
    double began = now_seconds();
    for (long i = 0; i < in_flight_cap && started < requests; i++) {
        handles[i] = curl_easy_init();
        struct curl_slist *list = headers;
        if (unique_header) {
            char line[128];
            snprintf(line, sizeof line, "%s: 00000000-0000-4000-8000-000000000000", unique_header);
            list = NULL;
            for (struct curl_slist *shared = headers; shared; shared = shared->next) list = curl_slist_append(list, shared->data);
            list = curl_slist_append(list, line);
            struct curl_slist *last = list;
            while (last->next) last = last->next;
            lists[i] = list;
            ids[i] = last->data + strlen(unique_header) + 2;
            write_uuid(ids[i], &random_state);
        }
        prepare(handles[i], url, list, body, length, ca);
        curl_easy_setopt(handles[i], CURLOPT_PRIVATE, (void *)ids[i]);
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
                /* The same handle, options kept: only re-added (with -u, after a fresh id). */
                char *id = NULL;
                curl_easy_getinfo(easy, CURLINFO_PRIVATE, &id);
                if (id) write_uuid(id, &random_state);
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
    for (long i = 0; i < in_flight_cap; i++) {
        if (handles[i]) curl_easy_cleanup(handles[i]);
        if (lists[i]) curl_slist_free_all(lists[i]);
    }
    free(lists);
    free(ids);
    curl_multi_cleanup(multi);
    curl_slist_free_all(headers);
    free(handles);
    free(body);
    curl_global_cleanup();
    return 0;
}
