/* Timers: placeholder so the tree links while the timer module is written. */
#include "loop.h"

#include <errno.h>
#include <string.h>

int vigil__timers_init(vigil_loop *loop) { (void)loop; return 0; }
void vigil__timers_fini(vigil_loop *loop) { (void)loop; }
int vigil__timers_run(vigil_loop *loop) { (void)loop; return 0; }
void vigil__timers_wait(vigil_loop *loop, struct vigil__wait *w) { (void)loop; w->timeout_ns = -1; w->deadline_ns = 0; }
void vigil__timers_finish(vigil_loop *loop) { (void)loop; }
bool vigil__heap_valid(const struct vigil__heap *h) { (void)h; return true; }

int vigil_timer_start(vigil_loop *loop, vigil_timer *t, clockid_t clock, int64_t when_ns, int64_t interval_ns,
                      uint32_t flags, vigil_timer_cb cb)
{
    (void)loop; (void)t; (void)clock; (void)when_ns; (void)interval_ns; (void)flags; (void)cb;
    return -ENOSYS;
}
int vigil_timer_stop(vigil_loop *loop, vigil_timer *t) { (void)loop; (void)t; return 0; }
int vigil_timer_active(const vigil_timer *t) { return t->state != 0; }
int vigil_loop_stats(vigil_loop *loop, struct vigil_loop_stats *out)
{
    memset(out, 0, sizeof *out);
    out->turns = loop->turns;
    out->waits = loop->waits;
    return 0;
}
