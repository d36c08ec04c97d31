/* firmware.h: what startup.c gives the firmware. */
#ifndef FIRMWARE_H
#define FIRMWARE_H

#include <stddef.h>

/* Write bytes to the host's stdout (semihosting). */
void fw_write(const char *bytes, size_t len);
/* Stop QEMU: exit status 0 when ok, 1 otherwise. */
void fw_exit(int ok) __attribute__((noreturn));
/* Bytes of stack used at the deepest point since reset (the stack is painted). */
size_t fw_stack_peak(void);
/* Paint the unused stack again, so the next fw_stack_peak measures from here. */
void fw_stack_repaint(void);
/* Bytes of .data and .bss. */
size_t fw_static_ram(void);

#endif
