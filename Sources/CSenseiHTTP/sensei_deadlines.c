#include "sensei_deadlines.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

struct sensei_watch {
    struct sensei_watch *prev, *next;
    struct sensei_deadlines *deadlines;
    int fd;
    int armed;               // a request is due by `due`
    struct timespec due;     // CLOCK_MONOTONIC
};

static struct timespec after_seconds(unsigned int seconds) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    now.tv_sec += seconds;
    return now;
}

static int passed(const struct timespec *due, const struct timespec *now) {
    return now->tv_sec > due->tv_sec || (now->tv_sec == due->tv_sec && now->tv_nsec >= due->tv_nsec);
}

// Wakes four times a second: a late connection is cut within 250 ms of its due time.
static void *watch_loop(void *argument) {
    struct sensei_deadlines *deadlines = argument;
    pthread_mutex_lock(&deadlines->lock);
    while (!deadlines->stopping) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (struct sensei_watch *watch = deadlines->watches; watch; watch = watch->next) {
            if (watch->armed && passed(&watch->due, &now)) {
                // Safe on a socket MHD is polling: MHD closes the descriptor only
                // after the CLOSED notification, which needs this lock.
                shutdown(watch->fd, SHUT_RDWR);
                watch->armed = 0;
            }
        }
        struct timespec wake = now;
        wake.tv_nsec += 250 * 1000 * 1000;
        if (wake.tv_nsec >= 1000 * 1000 * 1000) {
            wake.tv_sec += 1;
            wake.tv_nsec -= 1000 * 1000 * 1000;
        }
        pthread_cond_timedwait(&deadlines->wake, &deadlines->lock, &wake);
    }
    pthread_mutex_unlock(&deadlines->lock);
    return NULL;
}

int sensei_deadlines_start(struct sensei_deadlines *deadlines, unsigned int seconds) {
    deadlines->seconds = seconds;
    deadlines->running = 0;
    deadlines->stopping = 0;
    deadlines->watches = NULL;
    pthread_mutex_init(&deadlines->lock, NULL);
    pthread_condattr_t attributes;
    pthread_condattr_init(&attributes);
    pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC);
    pthread_cond_init(&deadlines->wake, &attributes);
    pthread_condattr_destroy(&attributes);
    if (seconds == 0) return 0;
    if (pthread_create(&deadlines->thread, NULL, watch_loop, deadlines) != 0) {
        pthread_cond_destroy(&deadlines->wake);
        pthread_mutex_destroy(&deadlines->lock);
        return -1;
    }
    deadlines->running = 1;
    return 0;
}

void sensei_deadlines_stop(struct sensei_deadlines *deadlines) {
    pthread_mutex_lock(&deadlines->lock);
    deadlines->stopping = 1;
    pthread_cond_signal(&deadlines->wake);
    pthread_mutex_unlock(&deadlines->lock);
    if (deadlines->running) pthread_join(deadlines->thread, NULL);
    while (deadlines->watches) {
        struct sensei_watch *watch = deadlines->watches;
        deadlines->watches = watch->next;
        free(watch);
    }
    pthread_cond_destroy(&deadlines->wake);
    pthread_mutex_destroy(&deadlines->lock);
}

void sensei_deadlines_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                             enum MHD_ConnectionNotificationCode code) {
    struct sensei_deadlines *deadlines = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct sensei_watch *watch = calloc(1, sizeof *watch);
        if (!info || !watch) {
            free(watch);
            return;  // no deadline for this one; MHD's idle timeout still applies
        }
        watch->deadlines = deadlines;
        watch->fd = info->connect_fd;
        watch->armed = 1;
        watch->due = after_seconds(deadlines->seconds);
        pthread_mutex_lock(&deadlines->lock);
        watch->next = deadlines->watches;
        if (watch->next) watch->next->prev = watch;
        deadlines->watches = watch;
        pthread_mutex_unlock(&deadlines->lock);
        *socket_context = watch;
    } else if (*socket_context) {
        struct sensei_watch *watch = *socket_context;
        pthread_mutex_lock(&deadlines->lock);
        if (watch->prev) watch->prev->next = watch->next; else deadlines->watches = watch->next;
        if (watch->next) watch->next->prev = watch->prev;
        pthread_mutex_unlock(&deadlines->lock);
        free(watch);
        *socket_context = NULL;
    }
}

static void set_armed(struct MHD_Connection *connection, int armed) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    struct sensei_watch *watch = info ? info->socket_context : NULL;
    if (!watch) return;
    pthread_mutex_lock(&watch->deadlines->lock);
    watch->armed = armed;
    if (armed) watch->due = after_seconds(watch->deadlines->seconds);
    pthread_mutex_unlock(&watch->deadlines->lock);
}

void sensei_deadlines_request_arrived(struct MHD_Connection *connection) {
    set_armed(connection, 0);
}

void sensei_deadlines_request_done(struct MHD_Connection *connection) {
    set_armed(connection, 1);
}
