#include <openssl/evp.h>
#include <openssl/sha.h>
