#include "sensei_http.h"
#include "sensei_deadlines.h"

#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct sensei_callbacks {
    sensei_access_fn access;
    sensei_completed_fn completed;
    sensei_log_fn log;
    void *cls;
    int starting;             // set while MHD_start_daemon runs on `starter`
    pthread_t starter;
    char first_error[256];    // MHD's first message from `starter` during the start
};

// One set of callbacks per daemon, owned by the daemon (freed in stop).
static enum MHD_Result access_trampoline(void *cls, struct MHD_Connection *connection,
                                         const char *url, const char *method,
                                         const char *version, const char *upload_data,
                                         size_t *upload_data_size, void **request_state) {
    (void)version;
    struct sensei_callbacks *callbacks = cls;
    if (*request_state != NULL && *upload_data_size == 0) sensei_deadlines_request_arrived(connection);
    int result = callbacks->access(callbacks->cls, connection, url, method,
                                   upload_data, upload_data_size, request_state);
    return result ? MHD_YES : MHD_NO;
}

static void completed_trampoline(void *cls, struct MHD_Connection *connection,
                                 void **request_state, enum MHD_RequestTerminationCode code) {
    (void)code;
    struct sensei_callbacks *callbacks = cls;
    sensei_deadlines_request_done(connection);
    callbacks->completed(callbacks->cls, request_state);
}

static void log_trampoline(void *cls, const char *format, va_list args) {
    struct sensei_callbacks *callbacks = cls;
    char message[512];
    vsnprintf(message, sizeof message, format, args);
    size_t length = strlen(message);
    while (length > 0 && (message[length - 1] == '\n' || message[length - 1] == '\r')) {
        message[--length] = '\0';
    }
    // Kept so that a failed start can say why (a refused TLS key, say), not
    // only that it failed. Only the thread running MHD_start_daemon writes it.
    if (callbacks->starting && pthread_equal(pthread_self(), callbacks->starter)) {
        snprintf(callbacks->first_error, sizeof callbacks->first_error, "%s", message);
        callbacks->starting = 0;
    }
    callbacks->log(callbacks->cls, message);
}

static int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// MHD's own unescaper turns %00 into a NUL, which ends the C string Swift
// reads: "/sensors/a%00b" would be served as "/sensors/a". Decode every %HH
// but that one, which stays "%00" and so is never a valid sensor code.
static size_t unescape_callback(void *cls, struct MHD_Connection *connection, char *s) {
    (void)cls;
    (void)connection;
    char *out = s;
    for (char *in = s; *in; ) {
        int high, low;
        if (in[0] == '%' && (high = hex_value(in[1])) >= 0 && (low = hex_value(in[2])) >= 0
            && (high | low) != 0) {
            *out++ = (char)(high * 16 + low);
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

// What Swift holds: the daemon plus the callbacks block it points into.
struct sensei_daemon {
    struct MHD_Daemon *daemon;
    struct sensei_callbacks callbacks;
    MHD_socket listen_socket;  // set by quiesce
    struct sensei_deadlines deadlines;
    atomic_long open_connections;  // for metrics: counted as MHD opens and closes them
    // Our own copies of the PEM text: the caller's strings live only for the
    // call, and MHD keeps the pointers it is given.
    char *tls_cert_pem;
    char *tls_key_pem;
};

static void free_handle(struct sensei_daemon *handle) {
    free(handle->tls_cert_pem);
    if (handle->tls_key_pem) {
        // A private key: wipe it before giving the memory back.
        memset(handle->tls_key_pem, 0, strlen(handle->tls_key_pem));
        free(handle->tls_key_pem);
    }
    free(handle);
}

// Counts connections, then lets the deadlines watch them.
static void notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                              enum MHD_ConnectionNotificationCode code) {
    struct sensei_daemon *handle = cls;
    atomic_fetch_add_explicit(&handle->open_connections, code == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1,
                              memory_order_relaxed);
    sensei_deadlines_notify(&handle->deadlines, connection, socket_context, code);
}

struct sensei_daemon *sensei_daemon_start(const struct sensei_daemon_config *config,
                                       sensei_access_fn access,
                                       sensei_completed_fn completed,
                                       sensei_log_fn log,
                                       void *cls,
                                       char *error, size_t error_size) {
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    // poll(2), not epoll: libmicrohttpd 0.9.75's MHD_quiesce_daemon (our
    // shutdown's first step) races a worker's MHD_epoll over removing the
    // listening socket from the epoll set, and the loser aborts the process
    // ("Failed to remove listen FD from epoll set", seen in a full test
    // run). With poll, quiescing only tells each worker through its
    // inter-thread channel. poll costs a pass over a worker's connections
    // (at most 512 over all workers by default; a home lab holds tens).
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL
                       | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;

    const char *host = (config->host && config->host[0]) ? config->host : NULL;
    if (host) {
        struct addrinfo hints, *found = NULL;
        memset(&hints, 0, sizeof hints);
        hints.ai_family = AF_UNSPEC;
        hints.ai_socktype = SOCK_STREAM;
        hints.ai_flags = AI_PASSIVE;
        int status = getaddrinfo(host, NULL, &hints, &found);
        if (status != 0 || found == NULL) {
            snprintf(error, error_size, "cannot resolve host '%s': %s", host, gai_strerror(status));
            return NULL;
        }
        memcpy(&address, found->ai_addr, found->ai_addrlen);
        freeaddrinfo(found);
        if (address.ss_family == AF_INET6) {
            ((struct sockaddr_in6 *)&address)->sin6_port = htons(config->port);
            flags |= MHD_USE_IPv6;
        } else {
            ((struct sockaddr_in *)&address)->sin_port = htons(config->port);
        }
    } else {
        struct sockaddr_in *any = (struct sockaddr_in *)&address;
        any->sin_family = AF_INET;
        any->sin_addr.s_addr = htonl(INADDR_ANY);
        any->sin_port = htons(config->port);
    }

    int tls = config->tls_cert_pem != NULL && config->tls_key_pem != NULL;
    if (tls) {
        if (!MHD_is_feature_supported(MHD_FEATURE_TLS)) {
            snprintf(error, error_size, "this libmicrohttpd was built without TLS support");
            return NULL;
        }
        flags |= MHD_USE_TLS;
    }

    struct sensei_daemon *handle = calloc(1, sizeof *handle);
    if (!handle) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    struct sensei_callbacks *callbacks = &handle->callbacks;
    callbacks->access = access;
    callbacks->completed = completed;
    callbacks->log = log;
    callbacks->cls = cls;
    if (tls) {
        handle->tls_cert_pem = strdup(config->tls_cert_pem);
        handle->tls_key_pem = strdup(config->tls_key_pem);
        if (!handle->tls_cert_pem || !handle->tls_key_pem) {
            snprintf(error, error_size, "out of memory");
            free_handle(handle);
            return NULL;
        }
    }

    struct MHD_OptionItem options[16];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &address};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_UNESCAPE_CALLBACK,
                                           (intptr_t)unescape_callback, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED,
                                           (intptr_t)completed_trampoline, callbacks};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE,
                                           config->threads ? config->threads : 1, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT,
                                           config->connection_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT,
                                           config->connection_timeout, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                                           (intptr_t)config->connection_memory_limit, NULL};
    // No MHD_OPTION_LISTENING_ADDRESS_REUSE: its 1 sets SO_REUSEPORT, which let a
    // second server share a taken port and split the readings between two
    // databases. The default (SO_REUSEADDR) still rebinds at once after a restart.
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION,
                                           (intptr_t)notify_connection, handle};
    if (tls) {
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, handle->tls_cert_pem};
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, handle->tls_key_pem};
    }
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};

    if (sensei_deadlines_start(&handle->deadlines, config->connection_timeout) != 0) {
        snprintf(error, error_size, "cannot start the request deadline thread");
        free_handle(handle);
        return NULL;
    }
    callbacks->starter = pthread_self();
    callbacks->starting = 1;
    struct MHD_Daemon *daemon = MHD_start_daemon(flags, config->port, NULL, NULL,
                                                 access_trampoline, callbacks,
                                                 // The logger first, so that MHD routes
                                                 // even its option errors through it.
                                                 MHD_OPTION_EXTERNAL_LOGGER, log_trampoline, callbacks,
                                                 MHD_OPTION_ARRAY, options,
                                                 MHD_OPTION_END);
    callbacks->starting = 0;
    if (!daemon) {
        if (callbacks->first_error[0]) {
            snprintf(error, error_size, "cannot start on %s port %u: %s",
                     host ? host : "0.0.0.0", (unsigned)config->port, callbacks->first_error);
        } else {
            snprintf(error, error_size, "cannot listen on %s port %u (in use, or not allowed)",
                     host ? host : "0.0.0.0", (unsigned)config->port);
        }
        sensei_deadlines_stop(&handle->deadlines);
        free_handle(handle);
        return NULL;
    }
    handle->daemon = daemon;
    handle->listen_socket = MHD_INVALID_SOCKET;
    return handle;
}

uint16_t sensei_daemon_port(struct sensei_daemon *handle) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(handle->daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info ? info->port : 0;
}

long sensei_daemon_open_connections(struct sensei_daemon *handle) {
    return atomic_load_explicit(&handle->open_connections, memory_order_relaxed);
}

void sensei_daemon_quiesce(struct sensei_daemon *handle) {
    if (handle->listen_socket == MHD_INVALID_SOCKET) {
        handle->listen_socket = MHD_quiesce_daemon(handle->daemon);
    }
}

void sensei_daemon_stop(struct sensei_daemon *handle) {
    MHD_stop_daemon(handle->daemon);
    sensei_deadlines_stop(&handle->deadlines);
    // After quiesce the listening socket is ours to close (MHD's contract),
    // else the port keeps accepting into a backlog nobody reads.
    if (handle->listen_socket != MHD_INVALID_SOCKET) {
        close(handle->listen_socket);
    }
    free_handle(handle);
}

const char *sensei_request_header(struct MHD_Connection *connection, const char *name) {
    return MHD_lookup_connection_value(connection, MHD_HEADER_KIND, name);
}

struct argument_visit {
    sensei_argument_fn visit;
    void *context;
};

static enum MHD_Result argument_trampoline(void *cls, enum MHD_ValueKind kind,
                                           const char *key, const char *value) {
    (void)kind;
    struct argument_visit *visit = cls;
    visit->visit(visit->context, key, value);
    return MHD_YES;
}

void sensei_request_arguments(struct MHD_Connection *connection,
                              sensei_argument_fn visit, void *context) {
    struct argument_visit state = {visit, context};
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, argument_trampoline, &state);
}

struct MHD_Response *sensei_response_create(const void *body, size_t length) {
    return MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
}

struct stream_callbacks {
    sensei_stream_read_fn read;
    sensei_stream_release_fn release;
    void *cls;
};

static ssize_t stream_reader(void *cls, uint64_t pos, char *buffer, size_t max) {
    (void)pos;
    struct stream_callbacks *callbacks = cls;
    long result = callbacks->read(callbacks->cls, buffer, max);
    if (result == SENSEI_STREAM_END) return MHD_CONTENT_READER_END_OF_STREAM;
    if (result < 0) return MHD_CONTENT_READER_END_WITH_ERROR;
    return (ssize_t)result;
}

static void stream_release(void *cls) {
    struct stream_callbacks *callbacks = cls;
    callbacks->release(callbacks->cls);
    free(callbacks);
}

struct MHD_Response *sensei_response_create_stream(size_t block_size, sensei_stream_read_fn read,
                                                   sensei_stream_release_fn release, void *cls) {
    struct stream_callbacks *callbacks = malloc(sizeof *callbacks);
    if (!callbacks) return NULL;
    *callbacks = (struct stream_callbacks){read, release, cls};
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block_size,
                                                                      stream_reader, callbacks, stream_release);
    if (!response) free(callbacks);
    return response;
}

int sensei_response_add_header(struct MHD_Response *response, const char *name, const char *value) {
    return MHD_add_response_header(response, name, value) == MHD_YES;
}

int sensei_response_queue(struct MHD_Connection *connection, unsigned int status,
                          struct MHD_Response *response) {
    enum MHD_Result result = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return result == MHD_YES;
}

void sensei_connection_suspend(struct MHD_Connection *connection) {
    MHD_suspend_connection(connection);
}

void sensei_connection_resume(struct MHD_Connection *connection) {
    MHD_resume_connection(connection);
}
