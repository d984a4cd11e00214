#ifndef SENSEI_HTTP_H
#define SENSEI_HTTP_H

#include <stddef.h>
#include <stdint.h>

// A thin, Swift-friendly face for libmicrohttpd. MHD_start_daemon is variadic
// and several MHD enums (MHD_Result, MHD_ValueKind, MHD_RequestTerminationCode)
// do not import into Swift, so everything Swift needs goes through plain ints
// and opaque pointers here.

struct sensei_daemon;
struct MHD_Connection;
struct MHD_Response;

/// Called for every chunk of a request; returns 1 to go on, 0 to close the connection.
typedef int (*sensei_access_fn)(void *cls, struct MHD_Connection *connection,
                                const char *url, const char *method,
                                const char *upload_data, size_t *upload_data_size,
                                void **request_state);

/// Called once a request is over, answered or not.
typedef void (*sensei_completed_fn)(void *cls, void **request_state);

/// MHD's own error messages.
typedef void (*sensei_log_fn)(void *cls, const char *message);

struct sensei_daemon_config {
    const char *host;                 // NULL or "" = every address
    uint16_t port;                    // 0 = any free port
    unsigned int threads;             // worker threads, each polling its own connections
    unsigned int connection_limit;
    unsigned int connection_timeout;  // seconds of inactivity before a connection is closed
    size_t connection_memory_limit;   // bytes per connection for headers and buffers
    const char *tls_cert_pem;         // both NULL = plain HTTP
    const char *tls_key_pem;
};

/// Starts a daemon; NULL on failure with a reason in `error` (size `error_size`).
struct sensei_daemon *sensei_daemon_start(const struct sensei_daemon_config *config,
                                       sensei_access_fn access,
                                       sensei_completed_fn completed,
                                       sensei_log_fn log,
                                       void *cls,
                                       char *error, size_t error_size);

/// The port the daemon listens on (useful after asking for port 0).
uint16_t sensei_daemon_port(struct sensei_daemon *daemon);
/// Connections open now (accepted and not yet closed).
long sensei_daemon_open_connections(struct sensei_daemon *daemon);
/// Stops accepting new connections; in-flight ones go on.
void sensei_daemon_quiesce(struct sensei_daemon *daemon);
/// Closes every connection and joins the worker threads.
void sensei_daemon_stop(struct sensei_daemon *daemon);

/// A request header (case-insensitive name) or NULL.
const char *sensei_request_header(struct MHD_Connection *connection, const char *name);

/// Visits every query argument, already percent-decoded; value may be NULL.
typedef void (*sensei_argument_fn)(void *context, const char *key, const char *value);
void sensei_request_arguments(struct MHD_Connection *connection,
                              sensei_argument_fn visit, void *context);

/// A response holding a copy of `body`.
struct MHD_Response *sensei_response_create(const void *body, size_t length);
/// A streamed response of unknown length (chunked): `read` fills `buffer` with
/// up to `max` bytes and returns how many, 0 for none now (only after
/// suspending the connection, else MHD calls again at once),
/// SENSEI_STREAM_END to end it or SENSEI_STREAM_ABORT to cut the connection.
/// `release` runs once MHD is done with the response.
typedef long (*sensei_stream_read_fn)(void *cls, char *buffer, size_t max);
typedef void (*sensei_stream_release_fn)(void *cls);
#define SENSEI_STREAM_END (-1L)
#define SENSEI_STREAM_ABORT (-2L)
struct MHD_Response *sensei_response_create_stream(size_t block_size, sensei_stream_read_fn read,
                                                   sensei_stream_release_fn release, void *cls);
int sensei_response_add_header(struct MHD_Response *response, const char *name, const char *value);
/// Queues the response and releases this reference to it; returns 1 on success.
int sensei_response_queue(struct MHD_Connection *connection, unsigned int status,
                          struct MHD_Response *response);

/// Suspends / resumes a connection (the daemon is started with suspend/resume allowed).
void sensei_connection_suspend(struct MHD_Connection *connection);
void sensei_connection_resume(struct MHD_Connection *connection);

#endif
