"""What the mq benchmarks' plans share (mq-empty, mq-pingpong).

env_of(ctx, label): the environment of a step. "vigil-preload" is the kernel's program,
unchanged, under LD_PRELOAD=libvigil-mq.so (built in the build root from src/preload/);
MQLAB_SYSTEM relabels its records (lab/common/mq/sys_kernel.h), which refuse to be written
if the queue turns out to be the kernel's.
"""
import os


def env_of(ctx, label):
    if label != "vigil-preload":
        return {}
    return {"LD_PRELOAD": os.path.join(os.path.dirname(ctx.bin), "libvigil-mq.so"), "MQLAB_SYSTEM": label}
