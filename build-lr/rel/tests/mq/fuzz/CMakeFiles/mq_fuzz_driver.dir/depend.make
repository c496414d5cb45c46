# Empty dependencies file for mq_fuzz_driver.
# This may be replaced when dependencies are built.
