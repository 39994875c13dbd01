// See include/CBareSRTP.h: libsrtp2 (and, as a control, OpenSSL's AES-128-GCM) on one
// thread and on two, each thread pinned to its own CPU with sessions of its own.
#define _GNU_SOURCE
#include "CBareSRTP.h"

#include <openssl/evp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

typedef struct {
    int engine, profile, cpu, threads, length;
    atomic_int *start, *stop;
    long pairs;
    double cpu_seconds;
    int failed;
} worker_t;

static double seconds_of(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void clear_rtp(uint8_t *packet, int length, uint16_t sequence) {
    memset(packet, 0xA5, (size_t)length);
    packet[0] = 0x80;
    packet[1] = 96;
    packet[2] = (uint8_t)(sequence >> 8);
    packet[3] = (uint8_t)sequence;
    memset(packet + 4, 0, 8);
    packet[11] = 1;  // SSRC 1
}

// libsrtp2 through this target's own loops: protect a copy of the clear packet with a
// sender session, then unprotect a copy of the result with a receiver's.
static void run_libsrtp(worker_t *w, uint8_t *key) {
    bare_srtp *tx = bare_srtp_create(w->profile, key, 1), *rx = bare_srtp_create(w->profile, key, 0);
    uint8_t clear[1600], sealed[1600], opened[1600];
    uint16_t sequence = 0;
    if (!tx || !rx) { w->failed = 1; goto done; }
    clear_rtp(clear, w->length, 0);
    while (!atomic_load(w->start)) {}
    double cpu0 = seconds_of(CLOCK_THREAD_CPUTIME_ID);
    while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
        long length = bare_srtp_protect_loop(tx, clear, w->length, sealed, 1, &sequence);
        int32_t lengths[1] = {(int32_t)length};
        if (length <= 0 || bare_srtp_unprotect_loop(rx, sealed, (int)sizeof sealed, lengths, 0, 1, opened) <= 0) {
            w->failed = 1;
            break;
        }
        w->pairs++;
    }
    w->cpu_seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu0;
done:
    bare_srtp_destroy(tx);
    bare_srtp_destroy(rx);
}

// OpenSSL: the same AEAD work (AES-128-GCM, the 12-byte header as AAD, a 16-byte tag),
// one context per direction set up once, a fresh IV per packet.
static void run_openssl(worker_t *w, uint8_t *key) {
    EVP_CIPHER_CTX *seal = EVP_CIPHER_CTX_new(), *open = EVP_CIPHER_CTX_new();
    uint8_t iv[12] = {0}, packet[1600], sealed[1600], tag[16];
    uint16_t sequence = 0;
    int n, body = w->length - 12;
    if (!seal || !open || EVP_EncryptInit_ex(seal, EVP_aes_128_gcm(), NULL, key, iv) != 1
        || EVP_DecryptInit_ex(open, EVP_aes_128_gcm(), NULL, key, iv) != 1) { w->failed = 1; goto done; }
    while (!atomic_load(w->start)) {}
    double cpu0 = seconds_of(CLOCK_THREAD_CPUTIME_ID);
    while (!atomic_load_explicit(w->stop, memory_order_relaxed)) {
        clear_rtp(packet, w->length, sequence);  // stands in for the libsrtp loop's copy
        iv[10] = (uint8_t)(sequence >> 8);
        iv[11] = (uint8_t)sequence++;
        if (EVP_EncryptInit_ex(seal, NULL, NULL, NULL, iv) != 1 || EVP_EncryptUpdate(seal, NULL, &n, packet, 12) != 1
            || EVP_EncryptUpdate(seal, sealed, &n, packet + 12, body) != 1 || EVP_EncryptFinal_ex(seal, sealed + n, &n) != 1
            || EVP_CIPHER_CTX_ctrl(seal, EVP_CTRL_GCM_GET_TAG, 16, tag) != 1
            || EVP_DecryptInit_ex(open, NULL, NULL, NULL, iv) != 1 || EVP_DecryptUpdate(open, NULL, &n, packet, 12) != 1
            || EVP_DecryptUpdate(open, packet + 12, &n, sealed, body) != 1
            || EVP_CIPHER_CTX_ctrl(open, EVP_CTRL_GCM_SET_TAG, 16, tag) != 1
            || EVP_DecryptFinal_ex(open, packet + 12 + n, &n) != 1) { w->failed = 1; break; }
        w->pairs++;
    }
    w->cpu_seconds = seconds_of(CLOCK_THREAD_CPUTIME_ID) - cpu0;
done:
    EVP_CIPHER_CTX_free(seal);
    EVP_CIPHER_CTX_free(open);
}

static void *run(void *argument) {
    worker_t *w = argument;
    // Named by engine, thread and thread count ("srtp-2of2", "ossl-1of1"), so a profile
    // of otbench splits the configurations by thread name.
    char name[16];
    snprintf(name, sizeof name, "%s-%dof%d", w->engine == BARE_AEAD_LIBSRTP ? "srtp" : "ossl", w->cpu + 1, w->threads);
    pthread_setname_np(pthread_self(), name);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) { w->failed = 1; return NULL; }
    uint8_t key[30];
    for (int i = 0; i < 30; i++) key[i] = (uint8_t)(i * 7 + w->cpu);
    if (w->engine == BARE_AEAD_LIBSRTP) run_libsrtp(w, key); else run_openssl(w, key);
    return NULL;
}

int bare_aead_thread_run(int engine, int profile, int threads, int length, double seconds,
                         double *pairs_per_second, double *cpu_ns_per_pair) {
    if (threads < 1 || threads > 2 || length < 12 || length > 1500 || seconds <= 0) return -1;
    atomic_int start = 0, stop = 0;
    worker_t workers[2];
    pthread_t ids[2];
    int created = 0, status = 0;
    for (int i = 0; i < threads; i++) {
        workers[i] = (worker_t){.engine = engine, .profile = profile, .cpu = i, .threads = threads, .length = length,
                                .start = &start, .stop = &stop};
        if (pthread_create(&ids[i], NULL, run, &workers[i]) != 0) { status = -1; atomic_store(&stop, 1); break; }
        created++;
    }
    struct timespec settle = {0, 50 * 1000 * 1000};
    nanosleep(&settle, NULL);  // sessions created, threads on their CPUs
    double wall0 = seconds_of(CLOCK_MONOTONIC);
    atomic_store(&start, 1);
    struct timespec span = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&span, NULL);
    atomic_store(&stop, 1);
    double wall = seconds_of(CLOCK_MONOTONIC) - wall0;
    long pairs = 0;
    double cpu = 0;
    for (int i = 0; i < created; i++) {
        pthread_join(ids[i], NULL);
        if (workers[i].failed) status = -1;
        pairs += workers[i].pairs;
        cpu += workers[i].cpu_seconds;
    }
    if (status != 0 || pairs == 0) return -1;
    *pairs_per_second = (double)pairs / wall;
    *cpu_ns_per_pair = cpu / (double)pairs * 1e9;
    return 0;
}
