// OpenSSL's libcrypto from Debian (kept patched by the distribution): only
// its one-shot SHA-256 is used.
#include <openssl/sha.h>
