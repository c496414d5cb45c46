/* Highest priority first, FIFO within a priority, against a reference model, over
 * many interleaved sends and receives; the queue's invariants hold throughout. */
#include "mqt.h"
#include "mq/mq_int.h"

#define DEPTH 512
static struct { unsigned prio, seq; } model[DEPTH];
static int nmodel;

int main(void)
{
    mqt_setup();
    mqd_t q = mqt_create("/prio", DEPTH, 16);
    srand(12345);
    unsigned seq = 0;
    char buf[16], why[160];
    for (int round = 0; round < 20000; round++) {
        int send = nmodel == 0 || (nmodel < DEPTH && rand() % 2);
        if (send) {
            unsigned prio = (round % 3 == 0) ? (unsigned)(rand() % MQ_PRIO_MAX) : (unsigned)(rand() % 8);
            if (round % 5000 == 17)
                prio = MQ_PRIO_MAX - 1;
            memcpy(buf, &seq, sizeof seq);
            CHECK_SYS(vigil_mq_send(q, buf, sizeof seq, prio));
            model[nmodel].prio = prio;
            model[nmodel].seq = seq++;
            nmodel++;
        } else {
            /* Expected: highest prio, lowest seq among them. */
            int best = 0;
            for (int i = 1; i < nmodel; i++)
                if (model[i].prio > model[best].prio)
                    best = i;
            unsigned prio, got;
            CHECK_EQ(vigil_mq_receive(q, buf, sizeof buf, &prio), sizeof got);
            memcpy(&got, buf, sizeof got);
            CHECK_EQ(prio, model[best].prio);
            CHECK_EQ(got, model[best].seq);
            memmove(&model[best], &model[best + 1], (size_t)(nmodel - best - 1) * sizeof model[0]);
            nmodel--;
        }
        if (round % 997 == 0) {
            int r = vigil__mq_check(vigil__mq_get(q), why, sizeof why);
            if (r < 0) {
                fprintf(stderr, "invariant: %s\n", why);
                return 1;
            }
            struct mq_attr a;
            CHECK_SYS(vigil_mq_getattr(q, &a));
            CHECK_EQ(a.mq_curmsgs, nmodel);
        }
    }
    errno = 0;
    CHECK_EQ(vigil_mq_send(q, buf, 1, MQ_PRIO_MAX), -1);
    CHECK_EQ(errno, EINVAL);
    CHECK_SYS(vigil_mq_close(q));
    return 0;
}
