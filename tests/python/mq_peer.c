/* The C end of the Python package's message-queue tests (python/tests/test_mq.py):
 * vigil's queue calls in a separate process, blocking as a plain C program would.
 *
 *   mq_peer send NAME PRIO:TEXT...   sends each message at its priority, then exits 0
 *   mq_peer echo IN OUT COUNT        receives COUNT messages from IN (blocking); for each
 *                                    prints "PRIO TEXT" on stdout and sends TEXT back to
 *                                    OUT at priority PRIO + 1; exits 0
 * Any failure: a message on stderr and exit 1. The queues must exist (the test makes
 * them); VIGIL_MQ_DIR is inherited from the test. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vigil/mq.h>

static int fail(const char *what)
{
    fprintf(stderr, "mq_peer: %s: %s\n", what, strerror(errno));
    return 1;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "send")) {
        mqd_t q = vigil_mq_open(argv[2], O_WRONLY);
        if (q == (mqd_t)-1)
            return fail("open");
        for (int i = 3; i < argc; i++) {
            char *colon = strchr(argv[i], ':');
            if (!colon)
                return 2;
            unsigned prio = (unsigned)strtoul(argv[i], NULL, 10);
            if (vigil_mq_send(q, colon + 1, strlen(colon + 1), prio) < 0)
                return fail("send");
        }
        return vigil_mq_close(q) < 0 ? fail("close") : 0;
    }
    if (argc == 5 && !strcmp(argv[1], "echo")) {
        mqd_t in = vigil_mq_open(argv[2], O_RDONLY), out = vigil_mq_open(argv[3], O_WRONLY);
        if (in == (mqd_t)-1 || out == (mqd_t)-1)
            return fail("open");
        struct mq_attr a;
        if (vigil_mq_getattr(in, &a) < 0)
            return fail("getattr");
        char *buf = malloc((size_t)a.mq_msgsize);
        if (!buf)
            return 1;
        for (long i = 0, n = atol(argv[4]); i < n; i++) {
            unsigned prio;
            ssize_t len = vigil_mq_receive(in, buf, (size_t)a.mq_msgsize, &prio);
            if (len < 0)
                return fail("receive");
            printf("%u %.*s\n", prio, (int)len, buf);
            fflush(stdout);
            if (vigil_mq_send(out, buf, (size_t)len, prio + 1) < 0)
                return fail("send");
        }
        free(buf);
        vigil_mq_close(in);
        vigil_mq_close(out);
        return 0;
    }
    fprintf(stderr, "usage: mq_peer send NAME PRIO:TEXT... | echo IN OUT COUNT\n");
    return 2;
}
