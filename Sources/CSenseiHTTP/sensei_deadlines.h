#ifndef SENSEI_DEADLINES_H
#define SENSEI_DEADLINES_H

#include <microhttpd.h>
#include <pthread.h>

// Request deadlines: each request must arrive whole (headers and body)
// within the connection timeout of the connection opening or of the previous
// response. libmicrohttpd's own timeout counts only silence, so a client
// that sends a byte a second (slowloris) would hold its connection, and with
// enough of them every slot, forever. A watcher thread shuts such sockets
// down; libmicrohttpd then closes them as if the client had gone.

struct sensei_watch;

struct sensei_deadlines {
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_t thread;
    unsigned int seconds;
    int running;
    int stopping;
    struct sensei_watch *watches;  // every open connection
};

/// Starts the watcher for `seconds` (0: no deadlines, nothing started); 0 on success.
int sensei_deadlines_start(struct sensei_deadlines *deadlines, unsigned int seconds);
/// Stops the watcher and frees what is left; call after MHD_stop_daemon.
void sensei_deadlines_stop(struct sensei_deadlines *deadlines);

/// MHD_OPTION_NOTIFY_CONNECTION, with the deadlines as its closure.
void sensei_deadlines_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                             enum MHD_ConnectionNotificationCode code);
/// The request on `connection` has arrived whole: no deadline while it is served.
void sensei_deadlines_request_arrived(struct MHD_Connection *connection);
/// Its response is done: the next request must arrive within the timeout.
void sensei_deadlines_request_done(struct MHD_Connection *connection);

#endif
