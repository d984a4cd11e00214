#include <zlib.h>

// deflateInit2/inflateInit2 are macros that pass the library's version and
// the stream's size; these give them function form for Swift.
static inline int sensei_deflate_init_gzip(z_streamp stream, int level) {
    // 15 window bits + 16: a gzip header and trailer; memLevel 8 is zlib's default.
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
static inline int sensei_inflate_init_gzip(z_streamp stream) {
    // 15 window bits + 32: accept a gzip or zlib header, detected automatically.
    return inflateInit2(stream, 15 + 32);
}
