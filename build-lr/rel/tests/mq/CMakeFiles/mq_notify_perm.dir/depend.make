# Empty dependencies file for mq_notify_perm.
# This may be replaced when dependencies are built.
