/* vigil_net_addr_parse against what the address texts must give: family, port, address
 * bytes and length for each accepted form (the oracle is inet_pton and struct
 * sockaddr_un's layout, filled by hand), and the error for each rejected one. No loop:
 * the same on every backend. */
#include "vt.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/un.h>

static void v4(const char *text, const char *ip, int port)
{
    struct sockaddr_storage ss;
    memset(&ss, 0xa5, sizeof ss);
    int len = vigil_net_addr_parse(text, &ss);
    if (len != (int)sizeof(struct sockaddr_in)) {
        fprintf(stderr, "%s: %d\n", text, len);
        exit(1);
    }
    struct sockaddr_in want = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    CHECK_EQ(inet_pton(AF_INET, ip, &want.sin_addr), 1);
    CHECK(memcmp(&ss, &want, sizeof want) == 0);
}

static void v6(const char *text, const char *ip, int port, uint32_t scope)
{
    struct sockaddr_storage ss;
    memset(&ss, 0xa5, sizeof ss);
    int len = vigil_net_addr_parse(text, &ss);
    if (len != (int)sizeof(struct sockaddr_in6)) {
        fprintf(stderr, "%s: %d\n", text, len);
        exit(1);
    }
    struct sockaddr_in6 want = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port), .sin6_scope_id = scope};
    CHECK_EQ(inet_pton(AF_INET6, ip, &want.sin6_addr), 1);
    CHECK(memcmp(&ss, &want, sizeof want) == 0);
}

static void un(const char *text, const char *name, int abstract)
{
    struct sockaddr_storage ss;
    memset(&ss, 0xa5, sizeof ss);
    int len = vigil_net_addr_parse(text, &ss);
    struct sockaddr_un *su = (struct sockaddr_un *)&ss;
    size_t n = strlen(name);
    int want = (int)(offsetof(struct sockaddr_un, sun_path) + n + 1); /* path + NUL, or 0 + name */
    if (len != want) {
        fprintf(stderr, "%s: %d, want %d\n", text, len, want);
        exit(1);
    }
    CHECK_EQ(su->sun_family, AF_UNIX);
    if (abstract) {
        CHECK_EQ(su->sun_path[0], 0);
        CHECK(memcmp(su->sun_path + 1, name, n) == 0);
    } else
        CHECK(strcmp(su->sun_path, name) == 0);
}

static void bad(const char *text, int err)
{
    struct sockaddr_storage ss;
    int r = vigil_net_addr_parse(text, &ss);
    if (r != err) {
        fprintf(stderr, "\"%s\": %d, want %d\n", text ? text : "(null)", r, err);
        exit(1);
    }
}

int main(void)
{
    v4("127.0.0.1:8080", "127.0.0.1", 8080);
    v4("0.0.0.0:0", "0.0.0.0", 0);
    v4("255.255.255.255:65535", "255.255.255.255", 65535);
    v4("10.1.2.3:00080", "10.1.2.3", 80);
    v6("[::1]:8080", "::1", 8080, 0);
    v6("[::]:0", "::", 0, 0);
    v6("[fe80::1%7]:443", "fe80::1", 443, 7);
    v6("[::ffff:127.0.0.1]:1", "::ffff:127.0.0.1", 1, 0);
    unsigned lo = if_nametoindex("lo");
    if (lo)
        v6("[fe80::1%lo]:443", "fe80::1", 443, lo);
    un("/run/app.sock", "/run/app.sock", 0);
    un("./app.sock", "./app.sock", 0);
    un("unix:app.sock", "app.sock", 0);
    un("unix:127.0.0.1:80", "127.0.0.1:80", 0);
    un("@app", "app", 1);
    un("@a/b:c", "a/b:c", 1);

    /* The longest that fit: 107 bytes (sun_path is 108). */
    char path[300], text[320];
    memset(path, 'p', 107);
    path[0] = '/';
    path[107] = 0;
    un(path, path, 0);
    snprintf(text, sizeof text, "@%s", path + 1);
    char name[200];
    snprintf(name, sizeof name, "%s", path + 1); /* 106 bytes */
    un(text, name, 1);
    snprintf(text, sizeof text, "@%sx", path + 1); /* 107 */
    snprintf(name, sizeof name, "%sx", path + 1);
    un(text, name, 1);
    /* One more: -ENAMETOOLONG. */
    snprintf(text, sizeof text, "%sx", path);
    bad(text, -ENAMETOOLONG);
    snprintf(text, sizeof text, "@%sxy", path + 1);
    bad(text, -ENAMETOOLONG);
    snprintf(text, sizeof text, "unix:%sx", path);
    bad(text, -ENAMETOOLONG);

    static const char *const invalid[] = {
        "", "127.0.0.1", "127.0.0.1:", ":80", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:+80",
        "127.0.0.1:80x", "127.0.0.1:123456", "127.1:80", "1.2.3.4.5:80", "localhost:80", "example.com:443",
        "::1:80", "[::1]", "[::1]:", "[::1]80", "[::1:80", "[]:80", "[localhost]:80", "[::1%]:80",
        "[::1%nosuchif0]:80", "[::1%99999999999]:80", "[1.2.3.4]:80", "@", "unix:", " 127.0.0.1:80",
    };
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++)
        bad(invalid[i], -EINVAL);
    bad(NULL, -EINVAL);
    CHECK_EQ(vigil_net_addr_parse("127.0.0.1:1", NULL), -EINVAL);
    printf("net addr_parse: pass (%zu rejected forms)\n", sizeof invalid / sizeof invalid[0]);
    return 0;
}
