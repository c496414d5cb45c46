/* src/dns/system.c: the getaddrinfo() fallback, for names that a hosts: source vigil
 * does not speak answers (nsswitch.conf: mdns*, myhostname, resolve, ...). One thread of
 * the resolver's own, started at the first such name, takes jobs in order and runs the
 * system's getaddrinfo() on each (so the whole hosts: line is walked by glibc, and the
 * order is glibc's); a finished job goes back to the loop through an eventfd watched by
 * an internal watcher (it does not keep the loop running; the lookup does).
 *
 * LOCKING: mu guards todo_*, done_* and stop. A job belongs to the thread from the time
 * it is taken off todo until it is put on done; job->lk is read and written by the loop
 * thread only (set to NULL when the lookup ends first: the answer is then dropped).
 * Calls libc and src/loop (the internal watcher).
 */
#include "dns/dns_int.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

static int from_eai(int e, int err)
{
    switch (e) {
    case 0:
        return 0;
    case EAI_NONAME:
#ifdef EAI_ADDRFAMILY
    case EAI_ADDRFAMILY:
#endif
        return VIGIL_DNS_ENONAME;
#ifdef EAI_NODATA
    case EAI_NODATA:
        return VIGIL_DNS_ENODATA;
#endif
    case EAI_AGAIN:
        return VIGIL_DNS_ESERVFAIL;
    case EAI_MEMORY:
        return -ENOMEM;
    case EAI_SYSTEM:
        return err ? -err : VIGIL_DNS_ESYSTEM;
    default:
        return VIGIL_DNS_ESYSTEM;
    }
}

static void run_job(struct dns_sys_job *job)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = job->family;
    hints.ai_socktype = SOCK_STREAM; /* one entry per address */
    hints.ai_flags = AI_CANONNAME;
    errno = 0;
    int e = getaddrinfo(job->name, NULL, &hints, &res);
    job->status = from_eai(e, errno);
    job->naddr = 0;
    job->canon[0] = '\0';
    if (e != 0)
        return;
    for (struct addrinfo *a = res; a && job->naddr < DNS_MAX_ADDR; a = a->ai_next) {
        if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) || a->ai_addrlen > sizeof job->addr[0])
            continue;
        memset(&job->addr[job->naddr], 0, sizeof job->addr[0]);
        memcpy(&job->addr[job->naddr], a->ai_addr, a->ai_addrlen);
        job->naddr++;
    }
    if (res && res->ai_canonname)
        snprintf(job->canon, sizeof job->canon, "%s", res->ai_canonname);
    freeaddrinfo(res);
    if (job->naddr == 0)
        job->status = VIGIL_DNS_ENODATA;
}

static void *thread_main(void *arg)
{
    struct dns_sys *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (!s->todo_head && !s->stop)
            pthread_cond_wait(&s->cv, &s->mu);
        if (s->stop)
            break;
        struct dns_sys_job *job = s->todo_head;
        s->todo_head = job->next;
        if (!s->todo_head)
            s->todo_tail = &s->todo_head;
        pthread_mutex_unlock(&s->mu);
        run_job(job);
        pthread_mutex_lock(&s->mu);
        job->next = NULL;
        *s->done_tail = job;
        s->done_tail = &job->next;
        uint64_t one = 1;
        ssize_t w = write(s->efd, &one, sizeof one); /* cannot fail short of a full counter */
        (void)w;
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static void on_done(vigil_loop *loop, vigil_io *w, int revents)
{
    (void)loop;
    (void)revents;
    struct vigil_resolver *r = w->data;
    struct dns_sys *s = &r->sys;
    uint64_t n;
    ssize_t rd = read(s->efd, &n, sizeof n);
    (void)rd;
    pthread_mutex_lock(&s->mu);
    struct dns_sys_job *list = s->done_head;
    s->done_head = NULL;
    s->done_tail = &s->done_head;
    pthread_mutex_unlock(&s->mu);
    while (list) {
        struct dns_sys_job *job = list;
        list = job->next;
        s->pending--;
        if (job->lk)
            vigil__dns_sys_done(r, job);
        free(job);
    }
}

static int start(struct vigil_resolver *r)
{
    struct dns_sys *s = &r->sys;
    if (s->started)
        return 0;
    s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->efd < 0)
        return -errno;
    s->io.data = r;
    int e = vigil__io_start_internal(r->loop, &s->io, s->efd, VIGIL_READ, on_done);
    if (e < 0)
        goto out_close;
    e = -pthread_create(&s->th, NULL, thread_main, s);
    if (e < 0)
        goto out_stop;
    s->started = true;
    return 0;
out_stop:
    vigil_io_stop(r->loop, &s->io);
out_close:
    close(s->efd);
    s->efd = -1;
    return e;
}

int vigil__dns_sys_post(struct vigil_resolver *r, struct dns_lk *lk)
{
    int e = start(r);
    if (e < 0)
        return e;
    struct dns_sys_job *job = calloc(1, sizeof *job);
    if (!job)
        return -ENOMEM;
    job->lk = lk;
    job->family = lk->family;
    size_t n = strlen(lk->name); /* at most 253 */
    memcpy(job->name, lk->name, n);
    if (lk->trailing_dot)
        job->name[n++] = '.';
    job->name[n] = '\0';
    lk->job = job;
    r->stats.system_lookups++;
    r->sys.pending++;
    struct dns_sys *s = &r->sys;
    pthread_mutex_lock(&s->mu);
    *s->todo_tail = job;
    s->todo_tail = &job->next;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return 0;
}

/* Stops the thread (waits for the getaddrinfo() it runs, if any) and drops every job. */
void vigil__dns_sys_fini(struct vigil_resolver *r)
{
    struct dns_sys *s = &r->sys;
    if (!s->started)
        return;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->th, NULL);
    s->started = false;
    struct dns_sys_job *lists[2] = {s->todo_head, s->done_head};
    for (int i = 0; i < 2; i++)
        while (lists[i]) {
            struct dns_sys_job *job = lists[i];
            lists[i] = job->next;
            free(job);
        }
    s->todo_head = s->done_head = NULL;
    s->todo_tail = &s->todo_head;
    s->done_tail = &s->done_head;
    if (r->loop)
        vigil_io_stop(r->loop, &s->io);
    close(s->efd);
    s->efd = -1;
    s->stop = false;
}
