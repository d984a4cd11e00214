// PostgreSQL's own client library. poll(2) and eventfd(2) come along because
// SenseiPostgres waits on a connection's socket (and its wake-up descriptor)
// itself, to bound every wait by a deadline.
#include <poll.h>
#include <sys/eventfd.h>
#include <libpq-fe.h>
