"""What the mq benchmarks' plans share (mq-empty, mq-pingpong).

systems(prog): the systems a benchmark runs, each its program and label: prog_kernel,
prog_boost, prog_vigil, and the kernel's program again as "vigil-preload".
CPUS: how many CPUs the rounds rotate over (round r pins to CPU r % CPUS; mqlab.h: --cpu).

env_of(ctx, label): the environment of a step. "vigil-preload" is the kernel's program,
unchanged, under LD_PRELOAD=libvigil-mq.so (built in the build root from src/preload/);
MQLAB_SYSTEM relabels its records (lab/common/mq/sys_kernel.h), which refuse to be written
if the queue turns out to be the kernel's.
"""
import os

CPUS = min(2, os.cpu_count() or 1)


def systems(prog):
    return [(f"{prog}_kernel", "kernel"), (f"{prog}_boost", "boost"), (f"{prog}_vigil", "vigil"),
            (f"{prog}_kernel", "vigil-preload")]


def env_of(ctx, label):
    if label != "vigil-preload":
        return {}
    return {"LD_PRELOAD": os.path.join(os.path.dirname(ctx.bin), "libvigil-mq.so"), "MQLAB_SYSTEM": label}
