/* Addresses, listening and connecting in one call each (<vigil/net.h>): the text of an
 * address turned into a sockaddr (numeric only: names are not looked up here), a
 * listening socket made for it, and a connect started from it on a vigil_sock. What
 * every example server and client otherwise writes by hand (socket, SO_REUSEADDR,
 * bind, listen; socket, vigil_sock_open, vigil_sock_connect).
 *
 * Address texts:
 *   "a.b.c.d:port"           TCP over IPv4 (inet_pton's dotted quad, port 0-65535)
 *   "[v6]:port"              TCP over IPv6; "[v6%scope]:port" with a scope given as
 *                            an interface index or name (link-local addresses)
 *   "@name"                  an abstract AF_UNIX name (Linux: no file; the name is
 *                            the bytes after '@', up to 107)
 *   "unix:path", or any text with a '/' in it
 *                            an AF_UNIX path (up to 107 bytes)
 *
 * May call: the sockets front (vigil_sock_open, vigil_sock_connect, vigil_sock_close)
 * and the request's state (net_int.h) to refuse a busy request before a socket is made.
 */
#include "net/net_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define UNIX_PATH_MAX_ (sizeof(((struct sockaddr_un *)0)->sun_path))

/* "0".."65535", digits only. */
static bool parse_port(const char *p, in_port_t *out)
{
    unsigned long v = 0;
    size_t n = 0;
    for (; p[n]; n++) {
        if (p[n] < '0' || p[n] > '9' || n >= 5)
            return false;
        v = v * 10 + (unsigned long)(p[n] - '0');
    }
    if (n == 0 || v > 65535)
        return false;
    *out = htons((uint16_t)v);
    return true;
}

/* An interface index or name (no lookup beyond the kernel's interface table). */
static bool parse_scope(const char *p, size_t len, uint32_t *out)
{
    char name[IF_NAMESIZE];
    if (len == 0 || len >= sizeof name)
        return false;
    memcpy(name, p, len);
    name[len] = 0;
    bool digits = true;
    unsigned long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (name[i] < '0' || name[i] > '9')
            digits = false;
        else
            v = v * 10 + (unsigned long)(name[i] - '0');
    }
    if (digits) {
        if (len > 10 || v > UINT32_MAX)
            return false;
        *out = (uint32_t)v;
        return true;
    }
    unsigned idx = if_nametoindex(name);
    if (!idx)
        return false;
    *out = idx;
    return true;
}

static int parse_unix(const char *name, bool abstract, struct sockaddr_storage *ss)
{
    struct sockaddr_un *su = (struct sockaddr_un *)ss;
    size_t len = strlen(name);
    if (len == 0)
        return -EINVAL;
    /* A path keeps its terminating NUL in sun_path; an abstract name's first byte is 0. */
    if (len + 1 > UNIX_PATH_MAX_)
        return -ENAMETOOLONG;
    memset(su, 0, sizeof *su);
    su->sun_family = AF_UNIX;
    if (abstract) {
        memcpy(su->sun_path + 1, name, len);
        return (int)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
    }
    memcpy(su->sun_path, name, len + 1);
    return (int)(offsetof(struct sockaddr_un, sun_path) + len + 1);
}

static int parse_v6(const char *text, struct sockaddr_storage *ss)
{
    const char *rb = strchr(text, ']');
    if (!rb || rb[1] != ':')
        return -EINVAL;
    const char *host = text + 1;
    size_t hlen = (size_t)(rb - host);
    const char *pct = memchr(host, '%', hlen);
    size_t alen = pct ? (size_t)(pct - host) : hlen;
    char buf[INET6_ADDRSTRLEN];
    if (alen == 0 || alen >= sizeof buf)
        return -EINVAL;
    memcpy(buf, host, alen);
    buf[alen] = 0;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    memset(s6, 0, sizeof *s6);
    s6->sin6_family = AF_INET6;
    if (inet_pton(AF_INET6, buf, &s6->sin6_addr) != 1)
        return -EINVAL;
    if (pct && !parse_scope(pct + 1, hlen - alen - 1, &s6->sin6_scope_id))
        return -EINVAL;
    if (!parse_port(rb + 2, &s6->sin6_port))
        return -EINVAL;
    return (int)sizeof *s6;
}

static int parse_v4(const char *text, struct sockaddr_storage *ss)
{
    const char *colon = strrchr(text, ':');
    char buf[INET_ADDRSTRLEN];
    if (!colon || colon == text || (size_t)(colon - text) >= sizeof buf)
        return -EINVAL;
    memcpy(buf, text, (size_t)(colon - text));
    buf[colon - text] = 0;
    struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
    memset(s4, 0, sizeof *s4);
    s4->sin_family = AF_INET;
    if (inet_pton(AF_INET, buf, &s4->sin_addr) != 1 || !parse_port(colon + 1, &s4->sin_port))
        return -EINVAL;
    return (int)sizeof *s4;
}

int vigil_net_addr_parse(const char *text, struct sockaddr_storage *addr)
{
    if (!text || !addr)
        return -EINVAL;
    if (text[0] == '@')
        return parse_unix(text + 1, true, addr);
    if (!strncmp(text, "unix:", 5))
        return parse_unix(text + 5, false, addr);
    if (text[0] == '[')
        return parse_v6(text, addr);
    if (strchr(text, '/'))
        return parse_unix(text, false, addr);
    return parse_v4(text, addr);
}

/* ---------------------------------------------------------------- listening */

static int set_int(int fd, int level, int name, int v)
{
    return setsockopt(fd, level, name, &v, sizeof v) < 0 ? -errno : 0;
}

int vigil_net_listen_addr(const struct sockaddr *addr, socklen_t addrlen, int backlog, uint32_t flags)
{
    if (!addr || addrlen < sizeof(sa_family_t) || addrlen > sizeof(struct sockaddr_storage) || backlog < 0 ||
        (flags & ~(VIGIL_NET_REUSEPORT | VIGIL_NET_V6ONLY)))
        return -EINVAL;
    int family = addr->sa_family;
    if (family != AF_INET && family != AF_INET6 && family != AF_UNIX)
        return -EAFNOSUPPORT;
    if ((flags & VIGIL_NET_REUSEPORT) && family == AF_UNIX)
        return -EINVAL; /* SO_REUSEPORT spreads TCP connections; AF_UNIX has none of it */
    if ((flags & VIGIL_NET_V6ONLY) && family != AF_INET6)
        return -EINVAL;
    int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int r = 0;
    if (family != AF_UNIX) {
        /* A restarted server binds again while its old connections sit in TIME_WAIT. */
        r = set_int(fd, SOL_SOCKET, SO_REUSEADDR, 1);
        if (!r && (flags & VIGIL_NET_REUSEPORT))
            r = set_int(fd, SOL_SOCKET, SO_REUSEPORT, 1);
        /* Set either way, so the result does not depend on net.ipv6.bindv6only. */
        if (!r && family == AF_INET6)
            r = set_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, (flags & VIGIL_NET_V6ONLY) ? 1 : 0);
        if (r)
            goto out;
    }
    if (bind(fd, addr, addrlen) < 0) {
        r = -errno;
        goto out;
    }
    if (listen(fd, backlog) < 0) {
        r = -errno;
        /* The path this call made would stay behind and refuse the next bind. The
         * kernel takes a path that fills sun_path without a NUL: copy it to end it. */
        const struct sockaddr_un *su = (const struct sockaddr_un *)(const void *)addr;
        if (family == AF_UNIX && addrlen > offsetof(struct sockaddr_un, sun_path) + 1 && su->sun_path[0]) {
            size_t plen = addrlen - offsetof(struct sockaddr_un, sun_path);
            if (plen > UNIX_PATH_MAX_)
                plen = UNIX_PATH_MAX_;
            char path[UNIX_PATH_MAX_ + 1];
            memcpy(path, su->sun_path, plen);
            path[plen] = 0;
            unlink(path);
        }
        goto out;
    }
    return fd;
out:
    close(fd);
    return r;
}

int vigil_net_listen(const char *text, int backlog, uint32_t flags)
{
    struct sockaddr_storage ss;
    int len = vigil_net_addr_parse(text, &ss);
    if (len < 0)
        return len;
    return vigil_net_listen_addr((struct sockaddr *)&ss, (socklen_t)len, backlog, flags);
}

/* --------------------------------------------------------------- connecting */

int vigil_net_connect_addr(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const struct sockaddr *addr,
                           socklen_t addrlen, int64_t timeout_ns, vigil_net_cb cb)
{
    if (!loop || !s || !req || !cb || !addr || addrlen < sizeof(sa_family_t) ||
        addrlen > sizeof(struct sockaddr_storage) || timeout_ns < 0)
        return -EINVAL;
    int family = addr->sa_family;
    if (family != AF_INET && family != AF_INET6 && family != AF_UNIX)
        return -EAFNOSUPPORT;
    /* Everything vigil_sock_connect would refuse once s is open is refused here first,
     * so that no socket is made (and opened on s) for a connect that cannot start. */
    struct vigil__nreq *r = vigil__nreq(req);
    if (r->state != VIGIL__NR_IDLE || r->zc_notif)
        return -EBUSY;
    if (vigil__sock(s)->state & (VIGIL__S_OPEN | VIGIL__S_CLOSING))
        return -EBUSY;
    /* Blocking: vigil_sock_open makes it non-blocking where its backend needs it. */
    int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    int e = vigil_sock_open(loop, s, fd);
    if (e < 0) {
        close(fd);
        return e;
    }
    e = vigil_sock_connect(loop, s, req, addr, addrlen, timeout_ns, cb);
    if (e < 0)
        vigil_sock_close(loop, s, NULL); /* not reached: every refusal was checked above */
    return e;
}

int vigil_net_connect(vigil_loop *loop, vigil_sock *s, vigil_net_req *req, const char *text, int64_t timeout_ns,
                      vigil_net_cb cb)
{
    struct sockaddr_storage ss;
    int len = vigil_net_addr_parse(text, &ss);
    if (len < 0)
        return len;
    return vigil_net_connect_addr(loop, s, req, (struct sockaddr *)&ss, (socklen_t)len, timeout_ns, cb);
}
