#ifndef CMICROHTTPD_SHIM_H
#define CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/*
 * Typed wrappers for libmicrohttpd's variadic functions, which Swift cannot call.
 * Each wrapper fixes one argument list; the prefix keeps them apart from MHD's own names.
 */

/* Starts a daemon bound to `address` (IPv4 or IPv6, port inside; port 0 picks a free one),
 * with the access handler, a URI callback whose result becomes the request's `*con_cls`,
 * a completion callback to release it, a connection callback (opened/closed), and an error
 * logger. `thread_pool_size` <= 1 means a single internal polling thread; `connection_limit`
 * caps open connections, `per_address_limit` those from one client address (0: no cap);
 * `connection_memory_bytes` is each connection's buffer (request line and headers must fit).
 * Returns NULL when MHD cannot start (bind failure…). */
static inline struct MHD_Daemon *CMicroHTTPD_start_daemon(
    unsigned int flags,
    const struct sockaddr *address,
    unsigned int thread_pool_size,
    unsigned int connection_timeout_seconds,
    unsigned int connection_limit,
    unsigned int per_address_limit,
    size_t connection_memory_bytes,
    MHD_AccessHandlerCallback handler, void *handler_context,
    void *(*uri_callback)(void *cls, const char *uri, struct MHD_Connection *connection),
    void *uri_context,
    MHD_RequestCompletedCallback completed, void *completed_context,
    MHD_NotifyConnectionCallback connection_notice, void *connection_notice_context,
    MHD_LogCallback logger, void *logger_context)
{
    return MHD_start_daemon(
        flags, 0, NULL, NULL, handler, handler_context,
        MHD_OPTION_SOCK_ADDR, address,
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_bytes,
        MHD_OPTION_URI_LOG_CALLBACK, uri_callback, uri_context,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
        MHD_OPTION_NOTIFY_CONNECTION, connection_notice, connection_notice_context,
        MHD_OPTION_EXTERNAL_LOGGER, logger, logger_context,
        MHD_OPTION_END);
}

/* The connection's socket, or -1. */
static inline int CMicroHTTPD_connection_socket(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/* What the connection callback stored in the connection's socket context, or NULL. */
static inline void *CMicroHTTPD_connection_context(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/* The port the daemon is bound to (useful after binding port 0); 0 if unknown. */
static inline uint16_t CMicroHTTPD_bound_port(struct MHD_Daemon *daemon)
{
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/* The peer address of a connection, or NULL. Valid while the connection lives. */
static inline const struct sockaddr *CMicroHTTPD_client_address(struct MHD_Connection *connection)
{
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

#endif
