/*
 * startup.c: the smallest runtime a C firmware on QEMU mps2-an386 (Cortex-M4F) needs:
 * the vector table, a reset handler (copy .data, zero .bss, paint the stack, turn on the
 * FPU, run main, exit), and semihosting for output and exit (QEMU runs with
 * -semihosting-config enable=on,target=native, so the host's stdout is the UART here).
 * No C library start-up code is linked (-nostartfiles); memcpy and memset are here too
 * (below); newlib only supplies what is left (strlen, ...).
 */
#include <stddef.h>
#include <stdint.h>

#include "firmware.h"

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _stack_top;
int main(void);

/* Semihosting (Arm's "Semihosting for AArch32 and AArch64"): operation in r0, argument
 * block in r1, `bkpt 0xab` on M-profile cores. */
static uint32_t semihost(uint32_t op, const void *arg) {
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#define SYS_OPEN 0x01
#define SYS_WRITE 0x05
#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023u

static uint32_t stdout_handle = UINT32_MAX;

void fw_write(const char *bytes, size_t len) {
    if (stdout_handle == UINT32_MAX) {
        /* ":tt" opened for writing (mode 4, "w") is the host's stdout. */
        uint32_t open_args[3] = {(uint32_t)(uintptr_t) ":tt", 4, 3};
        stdout_handle = semihost(SYS_OPEN, open_args);
    }
    uint32_t write_args[3] = {stdout_handle, (uint32_t)(uintptr_t)bytes, (uint32_t)len};
    semihost(SYS_WRITE, write_args);
}

void fw_exit(int ok) {
    /* On 32-bit Arm, SYS_EXIT takes the reason itself: QEMU exits 0 for
     * ApplicationExit and 1 for anything else. */
    semihost(SYS_EXIT, (const void *)(uintptr_t)(ok ? ADP_STOPPED_APPLICATION_EXIT
                                                    : ADP_STOPPED_RUN_TIME_ERROR));
    for (;;) {
    }
}

/* libelicit_noalloc.a's panic handler calls abort(): a panic stops the device. This
 * abort() replaces the C library's (which would need signal support). */
void abort(void) {
    static const char msg[] = "ABORT: abort() called (a panic inside elicit, or a C error)\n";
    fw_write(msg, sizeof msg - 1);
    fw_exit(0 == 1);
    for (;;) {
    }
}

/* The memory routines the compiler and the library call (memcpy, memset, memcmp and the
 * Arm run-time ABI's __aeabi_memcpy*, __aeabi_memset*, __aeabi_memclr*), one byte at a
 * time: they replace libelicit_noalloc.a's (compiler_builtins' word-at-a-time versions,
 * weak definitions: 2,058 B less flash) and newlib's. This firmware copies at most a few KB per
 * round, so a byte per loop turn costs microseconds. GCC would turn these loops back
 * into calls to memcpy/memset (themselves) without no-tree-loop-distribute-patterns. */
#define BYTEWISE __attribute__((optimize("no-tree-loop-distribute-patterns")))
void *memcpy(void *restrict dst, const void *restrict src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void __aeabi_memcpy(void *dst, const void *src, size_t n);
void __aeabi_memcpy4(void *dst, const void *src, size_t n);
void __aeabi_memcpy8(void *dst, const void *src, size_t n);
void __aeabi_memset(void *dst, size_t n, int c);
void __aeabi_memset4(void *dst, size_t n, int c);
void __aeabi_memset8(void *dst, size_t n, int c);
void __aeabi_memclr(void *dst, size_t n);
void __aeabi_memclr4(void *dst, size_t n);
void __aeabi_memclr8(void *dst, size_t n);

BYTEWISE void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
    unsigned char *d = dst;
    const unsigned char *s = src;
    while (n--) {
        *d++ = *s++;
    }
    return dst;
}

BYTEWISE void *memset(void *dst, int c, size_t n) {
    unsigned char *d = dst;
    while (n--) {
        *d++ = (unsigned char)c;
    }
    return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
    const unsigned char *x = a, *y = b;
    for (; n; n--, x++, y++) {
        if (*x != *y) {
            return *x - *y;
        }
    }
    return 0;
}

void __aeabi_memcpy(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
void __aeabi_memcpy4(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
void __aeabi_memcpy8(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
void __aeabi_memset(void *dst, size_t n, int c) { memset(dst, c, n); }
void __aeabi_memset4(void *dst, size_t n, int c) { memset(dst, c, n); }
void __aeabi_memset8(void *dst, size_t n, int c) { memset(dst, c, n); }
void __aeabi_memclr(void *dst, size_t n) { memset(dst, 0, n); }
void __aeabi_memclr4(void *dst, size_t n) { memset(dst, 0, n); }
void __aeabi_memclr8(void *dst, size_t n) { memset(dst, 0, n); }

#define STACK_PAINT 0xC0DEC0DEu

/* The peak stack use since reset: the painted words below the stack top that were
 * overwritten. */
size_t fw_stack_peak(void) {
    uint32_t *p = &_ebss;
    while (p < &_stack_top && *p == STACK_PAINT) {
        p++;
    }
    return (size_t)((uintptr_t)&_stack_top - (uintptr_t)p);
}

void fw_stack_repaint(void) {
    uint32_t *sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    /* Leave this function's own frame (and a margin) alone. */
    for (uint32_t *p = &_ebss; p < sp - 64; p++) {
        *p = STACK_PAINT;
    }
}

size_t fw_static_ram(void) {
    return (size_t)((uintptr_t)&_ebss - (uintptr_t)&_sdata);
}

__attribute__((noreturn, naked)) void Reset_Handler(void) {
    __asm__ volatile(
        /* Paint from the end of .bss up to the current stack pointer (nothing is on the
         * stack yet), then continue in C. .bss and .data are set up by reset_c. */
        "ldr r0, =_ebss\n"
        "mov r1, sp\n"
        "ldr r2, =0xC0DEC0DE\n"
        "1: cmp r0, r1\n"
        "bhs 2f\n"
        "str r2, [r0], #4\n"
        "b 1b\n"
        "2: bl reset_c\n");
}

__attribute__((noreturn, used)) void reset_c(void) {
    uint32_t *src = &_sidata;
    for (uint32_t *dst = &_sdata; dst < &_edata;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &_sbss; dst < &_ebss;) {
        *dst++ = 0;
    }
    /* CPACR: full access to CP10 and CP11 (the FPU), as the hard-float ABI needs. */
    *(volatile uint32_t *)0xE000ED88u |= (0xFu << 20);
    __asm__ volatile("dsb\n isb" ::: "memory");
    fw_exit(main() == 0);
}

static void Default_Handler(void) {
    static const char msg[] = "FAULT: unexpected exception\n";
    fw_write(msg, sizeof msg - 1);
    fw_exit(0 == 1);
}

/* Initial stack pointer, then the exception handlers (reset, NMI, HardFault, ...). */
typedef void (*handler)(void);
struct vectors {
    const uint32_t *initial_sp;
    handler handlers[15];
};
__attribute__((section(".vector_table"), used)) static const struct vectors vector_table = {
    &_stack_top,
    {
        Reset_Handler,   /* reset */
        Default_Handler, /* NMI */
        Default_Handler, /* HardFault */
        Default_Handler, /* MemManage */
        Default_Handler, /* BusFault */
        Default_Handler, /* UsageFault */
        0, 0, 0, 0,      /* reserved */
        Default_Handler, /* SVCall */
        Default_Handler, /* DebugMonitor */
        0,               /* reserved */
        Default_Handler, /* PendSV */
        Default_Handler, /* SysTick */
    },
};
