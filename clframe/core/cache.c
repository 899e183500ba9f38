/*
 * cache.c: compiled program binaries kept on disk, so that the second run of
 * a program loads its kernels in milliseconds instead of compiling them again
 * (hundreds of milliseconds to seconds per source on PoCL and GPU drivers).
 *
 * An entry is keyed by everything that changes the binary: the source as
 * clframe hands it to the compiler (every #include already expanded, so the
 * included files' content is part of it), the build options, the device
 * name, and the platform, device and driver versions. It lives in
 * $XDG_CACHE_HOME/clframe (else ~/.cache/clframe) as <16 hex digits>.bin,
 * named by a 64-bit FNV-1a hash of the key, and holds
 *
 *     header: magic, format version, key length, binary length, CRC-64 of
 *             key and binary (struct entry_header)
 *     the key itself, byte for byte
 *     the binary, as CL_PROGRAM_BINARIES gave it
 *
 * The name is only a hint: loading compares the stored key with the wanted
 * one, so a hash collision or an entry left by another driver is a miss, and
 * checks the lengths against the file size and the checksum, so a truncated
 * or damaged entry is never handed to the driver (which accepts a flipped
 * byte in a binary without complaint). Whatever does not match is removed
 * and rebuilt. Writers never touch a visible entry: each writes a temporary
 * file of its own in the same folder (mkstemp) and renames it into place, so
 * readers see a whole old entry, a whole new one, or none.
 *
 * The cache can only save time, never cost a build: every failure in it (no
 * home folder, an unwritable or full disk, a binary the driver rejects) is a
 * silent miss. It is off under CLFRAME_CACHE=0, and under CL_DEBUG, where
 * every build must print its log. A writer killed before its rename leaves
 * a <hash>.bin.XXXXXX file that nothing reads. The folder also keeps the
 * small per-device values of settings.c, and PoCL's own kernel cache. It
 * must be the user's alone: one that others can write to is no cache.
 *
 * The entries (the files named <16 hex digits>.bin, nothing else) hold at
 * most CLFRAME_CACHE_MAX bytes together. A file's modification time is its
 * last use: writing sets it, and a hit sets it again (as ccache does), so
 * the scan that follows each store can remove the least recently used
 * entries until what is left fits, never the one just stored. An entry
 * larger than the cap itself is not stored (it would push every other out
 * and still not fit): under CLFRAME_CACHE_MAX=0 nothing is. Processes that
 * evict at once take turns under an flock() of the folder's cache.lock, so
 * each scans what the others left and none removes more than it must; a
 * reader needs no lock, since an entry removed while it is open stays
 * readable to the end (POSIX), and one removed before it is opened is a
 * miss.
 *
 * What storing costs depends on the driver: NVIDIA hands over the PTX it
 * already has, PoCL compiles every kernel's work-group code to put it in the
 * binary (seconds for a large file, once per new source), which in turn
 * makes the next run's first calls as quick as its build (bench/RESULTS.md).
 */
#include "core.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

enum { ENTRY_FORMAT = 1 };
/* The cap unless CLFRAME_CACHE_MAX says: room for the programs of all of
 * clframe's tests, apps and benchmarks many times over, little on a disk. */
static const size_t CACHE_MAX_DEFAULT = (size_t)256 << 20;
static const char LOCK_NAME[] = "cache.lock";
static const char ENTRY_MAGIC[8] = {'C', 'L', 'F', 'C', 'A', 'C', 'H', 'E'};

/* The first bytes of an entry, in the host's byte order: a cache is read by
 * the machine that wrote it (another one's entry fails the checks). */
typedef struct entry_header {
    char magic[8];
    uint32_t format;
    uint32_t reserved;           /* 0 */
    uint64_t key_len, binary_len;
    uint64_t checksum;           /* CRC-64 of key then binary */
} entry_header;
_Static_assert(sizeof(entry_header) == 40, "entry_header has no padding");

/* ---- hashes -------------------------------------------------------------- */

/* FNV-1a: spreads keys over file names well, and that is all it is for. */
static uint64_t fnv1a(const char *data, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)data[i]) * 0x100000001b3u;
    return h;
}

/* CRC-64/XZ (ECMA-182 polynomial, reflected): unlike FNV it is built to
 * catch damage (every burst of up to 64 flipped bits, any odd number of
 * them). The table is made per checksum, 2048 steps, rather than kept as
 * global state; it costs microseconds beside reading the file. */
static void crc64_table(uint64_t table[256])
{
    for (unsigned i = 0; i < 256; i++) {
        uint64_t c = i;
        for (int bit = 0; bit < 8; bit++)
            c = c & 1 ? (c >> 1) ^ 0xc96c5795d7870f42u : c >> 1;
        table[i] = c;
    }
}

static uint64_t crc64_update(const uint64_t table[256], uint64_t crc,
                             const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return crc;
}

uint64_t clf_cache_checksum(const char *key, size_t key_len,
                            const void *data, size_t len)
{
    uint64_t table[256];
    crc64_table(table);
    uint64_t crc = crc64_update(table, ~(uint64_t)0,
                                (const unsigned char *)key, key_len);
    return ~crc64_update(table, crc, data, len);
}

/* ---- the key ------------------------------------------------------------- */

int clf_cache_switched_off(void)
{
    const char *v = getenv("CLFRAME_CACHE");
    return v && strcmp(v, "0") == 0;
}

int clf_cache_max(size_t *max)
{
    const char *env = getenv("CLFRAME_CACHE_MAX");
    *max = CACHE_MAX_DEFAULT;
    if (env && *env && clf_parse_bytes(env, max))
        return clframe_fail(CLFRAME_ERR_USAGE, "CLFRAME_CACHE_MAX=\"%s\": a "
                            "number of bytes expected, with K, M or G after "
                            "it for KiB, MiB or GiB (0 stores nothing)", env);
    return 0;
}

static int cache_enabled(clctx *ctx)
{
    return !ctx->debug && !clf_cache_switched_off();
}

/* "name length\nvalue\n": with the length in front, no value can pass for
 * another field's end (an option ending in "\nsource"). */
static void key_field(clf_str *key, const char *name, const char *value,
                      size_t n)
{
    clf_str_printf(key, "%s %zu\n", name, n);
    clf_str_append(key, value, n);
    clf_str_append(key, "\n", 1);
}

/* A device (or, with of_platform, platform) string as a key field; they
 * can be longer than any fixed buffer, so asked for by size. */
static void key_info(clf_str *key, const char *name, clctx *ctx,
                     int of_platform, cl_uint param)
{
    size_t size = 0;
    cl_int err = of_platform
        ? clGetPlatformInfo(ctx->platform, param, 0, NULL, &size)
        : clGetDeviceInfo(ctx->device, param, 0, NULL, &size);
    char *value = err == CL_SUCCESS ? malloc(size + 1) : NULL;
    if (value)
        err = of_platform
            ? clGetPlatformInfo(ctx->platform, param, size, value, NULL)
            : clGetDeviceInfo(ctx->device, param, size, value, NULL);
    if (!value || err != CL_SUCCESS) {
        key->failed = 1;        /* no key, no entry: a miss */
        free(value);
        return;
    }
    value[size] = '\0';
    key_field(key, name, value, strlen(value));
    free(value);
}

void clf_cache_key_device(clf_str *key, clctx *ctx)
{
    key_info(key, "platform-version", ctx, 1, CL_PLATFORM_VERSION);
    key_info(key, "device-name", ctx, 0, CL_DEVICE_NAME);
    key_info(key, "device-version", ctx, 0, CL_DEVICE_VERSION);
    key_info(key, "driver-version", ctx, 0, CL_DRIVER_VERSION);
}

void clf_cache_key_field(clf_str *key, const char *name, const char *value)
{
    key_field(key, name, value, strlen(value));
}

/* Everything the binary depends on, as one byte string; NULL on failure. */
static char *make_key(clctx *ctx, const char *source, const char *options,
                      size_t *len)
{
    clf_str key = {0};
    clf_str_printf(&key, "clframe program cache key %d\n", ENTRY_FORMAT);
    clf_cache_key_device(&key, ctx);
    options = options ? options : "";
    key_field(&key, "options", options, strlen(options));
    key_field(&key, "source", source, strlen(source));
    if (key.failed) {
        free(key.data);
        return NULL;
    }
    *len = key.len;
    return key.data;
}

/* ---- where entries live -------------------------------------------------- */

/* Whether a folder may hold what is loaded from it: one owned by this user
 * that nobody else can write to (as ssh asks of ~/.ssh). One that cannot
 * be seen is judged by whoever makes it (0700) or fails to. */
static int folder_trusted(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 1;
    return S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* $XDG_CACHE_HOME/clframe, or $HOME/.cache/clframe, trusted or not; NULL
 * when neither is usable (or out of memory). The XDG specification says to
 * ignore a relative XDG_CACHE_HOME. */
static char *cache_dir_named(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    clf_str dir = {0};
    if (xdg && xdg[0] == '/')
        clf_str_printf(&dir, "%s/clframe", xdg);
    else if (home && home[0] == '/')
        clf_str_printf(&dir, "%s/.cache/clframe", home);
    else
        return NULL;
    if (dir.failed) {
        free(dir.data);
        return NULL;
    }
    return dir.data;
}

/* The named folder; NULL when there is none, or when it is one another
 * user could write to (then the cache is off: its entries would be
 * another's code). */
char *clf_cache_dir(void)
{
    char *dir = cache_dir_named();
    if (dir && !folder_trusted(dir)) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* PoCL keeps the kernels it compiles in a cache of its own and runs what
 * it finds there unchecked (a swapped .so runs as another kernel). Unless
 * the user has said where it goes (POCL_CACHE_DIR) or turned it off
 * (POCL_KERNEL_CACHE), it goes into clframe's folder, as pocl/, under the
 * same rule of ownership. Without such a folder PoCL caches nothing: it
 * builds each program in a new temporary folder. */
static void point_pocl_cache(void)
{
    if (getenv("POCL_CACHE_DIR") || getenv("POCL_KERNEL_CACHE"))
        return;
    char *dir = clf_cache_dir();
    clf_str pocl = {0};
    if (dir)
        clf_str_printf(&pocl, "%s/pocl", dir);
    if (dir && !pocl.failed && clf_make_dirs(pocl.data, 0700) == 0 &&
        folder_trusted(dir) && folder_trusted(pocl.data))
        setenv("POCL_CACHE_DIR", pocl.data, 0);
    else
        setenv("POCL_KERNEL_CACHE", "0", 0);
    free(pocl.data);
    free(dir);
}

void clf_cache_point_pocl(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, point_pocl_cache);
}

char *clf_cache_path(const char *dir, const char *key, size_t key_len,
                     const char *suffix)
{
    clf_str path = {0};
    clf_str_printf(&path, "%s/%016llx.%s", dir,
                   (unsigned long long)fnv1a(key, key_len), suffix);
    if (path.failed) {
        free(path.data);
        return NULL;
    }
    return path.data;
}

/* ---- loading ------------------------------------------------------------- */

const unsigned char *clf_cache_entry_binary(const unsigned char *file,
                                            size_t size, const char *key,
                                            size_t key_len,
                                            size_t *binary_len)
{
    entry_header h;
    if (!file || size < sizeof h)
        return NULL;
    memcpy(&h, file, sizeof h);
    size_t body = size - sizeof h;
    if (memcmp(h.magic, ENTRY_MAGIC, sizeof h.magic) != 0 ||
        h.format != ENTRY_FORMAT || h.key_len != key_len ||
        h.key_len > body || h.binary_len != body - h.key_len ||
        h.binary_len == 0)
        return NULL;
    const unsigned char *stored_key = file + sizeof h;
    const unsigned char *binary = stored_key + key_len;
    if (memcmp(stored_key, key, key_len) != 0 ||
        clf_cache_checksum(key, key_len, binary, body - key_len) != h.checksum)
        return NULL;
    *binary_len = body - key_len;
    return binary;
}

/* A program made from binary and built with options, as OpenCL requires
 * even for binaries; NULL if the driver rejects either step. */
static cl_program program_from_binary(clctx *ctx, const unsigned char *binary,
                                      size_t len, const char *options)
{
    cl_int status, err;
    cl_program program = clCreateProgramWithBinary(
        ctx->context, 1, &ctx->device, &len, &binary, &status, &err);
    if (err != CL_SUCCESS)
        return NULL;
    clf_track(ctx, 1);
    if (status != CL_SUCCESS ||
        clBuildProgram(program, 1, &ctx->device, options, NULL, NULL) !=
            CL_SUCCESS) {
        clReleaseProgram(program);
        clf_track(ctx, -1);
        return NULL;
    }
    return program;
}

cl_program clf_cache_load(clctx *ctx, const char *source, const char *options)
{
    if (!cache_enabled(ctx))
        return NULL;
    size_t key_len = 0, size = 0, binary_len = 0;
    int found = 0;
    char *key = make_key(ctx, source, options, &key_len);
    char *dir = key ? clf_cache_dir() : NULL;
    char *path = dir ? clf_cache_path(dir, key, key_len, "bin") : NULL;
    unsigned char *file =
        path ? (unsigned char *)clf_read_file(path, &size) : NULL;
    found = file || (path && access(path, F_OK) == 0);
    const unsigned char *binary =
        clf_cache_entry_binary(file, size, key, key_len, &binary_len);
    cl_program program =
        binary ? program_from_binary(ctx, binary, binary_len, options) : NULL;
    if (program) {
        ctx->stats.cache_hits++;
        utimensat(AT_FDCWD, path, NULL, 0);     /* used now: evicted last */
    } else if (found)
        unlink(path);           /* damaged, stale or rejected: rebuilt next */
    free(file);
    free(path);
    free(dir);
    free(key);
    return program;
}

/* ---- keeping it bounded ------------------------------------------------- */

/* One entry as the folder's scan sees it. */
enum { ENTRY_NAME_LEN = 20 };
typedef struct cache_entry {
    char name[ENTRY_NAME_LEN + 1];      /* <16 hex digits>.bin */
    uint64_t bytes;
    struct timespec used;       /* its modification time: last written or
                                   loaded */
} cache_entry;

typedef struct entry_list {
    cache_entry *at;
    size_t n, room;
    uint64_t bytes;             /* of them all */
} entry_list;

/* 1 for the names clf_cache_path gives program entries: only such files
 * are counted, evicted or cleared; whatever else is in the folder
 * (settings, PoCL's folder, the lock, a writer's temporary) is left. */
static int is_entry_name(const char *name)
{
    return strspn(name, "0123456789abcdef") == 16 &&
           strcmp(name + 16, ".bin") == 0;
}

static int list_add(entry_list *list, const char *name, const struct stat *st)
{
    if (list->n == list->room) {
        size_t room = list->room ? 2 * list->room : 64;
        cache_entry *at = realloc(list->at, room * sizeof *at);
        if (!at)
            return -1;
        list->at = at;
        list->room = room;
    }
    cache_entry *e = &list->at[list->n++];
    memcpy(e->name, name, sizeof e->name);  /* is_entry_name: its length */
    e->bytes = (uint64_t)st->st_size;
    e->used = st->st_mtim;
    list->bytes += e->bytes;
    return 0;
}

/* The entries of the folder open as dir_fd: regular files with an entry's
 * name (one that vanishes during the scan is not one). 0, or -1 with
 * errno (the folder cannot be read, out of memory); free list->at. */
static int list_entries(int dir_fd, entry_list *list)
{
    *list = (entry_list){0};
    /* A descriptor of its own, so that each scan starts at the first
     * name (a dup would share dir_fd's place); closedir closes it. */
    int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        errno = saved;
        return -1;
    }
    int bad = 0;
    for (struct dirent *e; !bad && (e = readdir(d));) {
        struct stat st;
        if (is_entry_name(e->d_name) &&
            fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISREG(st.st_mode))
            bad = list_add(list, e->d_name, &st);
    }
    int saved = errno;
    closedir(d);
    if (bad) {
        free(list->at);
        *list = (entry_list){0};
        errno = saved;
    }
    return bad ? -1 : 0;
}

/* Least recently used first; the name settles a tie, so that every
 * process orders the same entries the same way. */
static int by_use(const void *a, const void *b)
{
    const cache_entry *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec)
        return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
    if (x->used.tv_nsec != y->used.tv_nsec)
        return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Removes entries of the folder dir_fd, least recently used first and never
 * keep, until the rest hold at most max bytes: one scan, one pass. An
 * entry already removed by another counts as removed; one that cannot be
 * removed is passed over. */
static void evict_entries(int dir_fd, uint64_t max, const char *keep)
{
    entry_list list;
    if (list_entries(dir_fd, &list) != 0 || list.bytes <= max) {
        free(list.at);
        return;
    }
    qsort(list.at, list.n, sizeof *list.at, by_use);
    for (size_t i = 0; i < list.n && list.bytes > max; i++)
        if (strcmp(list.at[i].name, keep) != 0 &&
            (unlinkat(dir_fd, list.at[i].name, 0) == 0 || errno == ENOENT))
            list.bytes -= list.at[i].bytes;
    free(list.at);
}

/* 1 if the entries of the folder dir_fd hold more than max bytes. */
static int over_cap(int dir_fd, uint64_t max)
{
    entry_list list;
    int over = list_entries(dir_fd, &list) == 0 && list.bytes > max;
    free(list.at);
    return over;
}

/* Evicts what the entry just stored (keep) pushed past max. A scan without
 * the lock finds most stores within the cap; past it, the eviction runs
 * under the folder's lock, after a second scan: processes storing at once
 * evict one after the other, each seeing what the last one left, so that
 * none removes more than it must. Every store scans after its rename, so
 * the last scan sees every entry, and the folder ends within the cap.
 * Without a lock (a file system that has none) it evicts all the same. */
static void evict(const char *dir, size_t max, const char *keep)
{
    int dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        return;
    if (!over_cap(dir_fd, max)) {
        close(dir_fd);
        return;
    }
    int lock = openat(dir_fd, LOCK_NAME, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    while (lock >= 0 && flock(lock, LOCK_EX) != 0 && errno == EINTR)
        continue;
    evict_entries(dir_fd, max, keep);
    if (lock >= 0)
        close(lock);                    /* and with it the lock */
    close(dir_fd);
}

/* ---- storing ------------------------------------------------------------- */

/* The program's binary for ctx's device (its only device); NULL if the
 * driver gives none. */
static unsigned char *program_binary(cl_program program, size_t *len)
{
    cl_uint ndevices = 0;
    if (clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof ndevices,
                         &ndevices, NULL) != CL_SUCCESS || ndevices != 1 ||
        clGetProgramInfo(program, CL_PROGRAM_BINARY_SIZES, sizeof *len, len,
                         NULL) != CL_SUCCESS || *len == 0)
        return NULL;
    unsigned char *binary = malloc(*len);
    if (binary && clGetProgramInfo(program, CL_PROGRAM_BINARIES,
                                   sizeof binary, &binary, NULL) != CL_SUCCESS) {
        free(binary);
        return NULL;
    }
    return binary;
}

static int write_all(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int clf_write_atomic(const char *path, const clf_span *spans, int n)
{
    clf_str tmp = {0};
    clf_str_printf(&tmp, "%s.XXXXXX", path);
    int fd = tmp.failed ? -1 : mkstemp(tmp.data);
    int bad = fd < 0;
    for (int i = 0; i < n && !bad; i++)
        bad = write_all(fd, spans[i].data, spans[i].len);
    if (fd >= 0)
        bad |= close(fd) != 0;
    if (fd >= 0 && (bad || rename(tmp.data, path) != 0)) {
        int saved = errno;
        unlink(tmp.data);
        errno = saved;
        bad = 1;
    }
    if (tmp.failed)
        errno = ENOMEM;
    free(tmp.data);
    return bad ? -1 : 0;
}

/* Writes the entry (no fsync: an entry cut short by a crash fails the
 * checks and is rebuilt, which is cheaper than syncing every build). 0, or
 * -1 when nothing was written. */
static int write_entry(const char *path, const char *key, size_t key_len,
                       const unsigned char *binary, size_t binary_len)
{
    entry_header h = {.format = ENTRY_FORMAT, .key_len = key_len,
                      .binary_len = binary_len,
                      .checksum = clf_cache_checksum(key, key_len, binary,
                                                 binary_len)};
    memcpy(h.magic, ENTRY_MAGIC, sizeof h.magic);
    const clf_span spans[] = {{&h, sizeof h}, {key, key_len},
                              {binary, binary_len}};
    return clf_write_atomic(path, spans, 3);
}

/* Whether an entry of this key and binary may be stored under cap max: it
 * must fit the cap, and be small enough for clf_cache_load to read. */
static int entry_fits(size_t key_len, size_t binary_len, size_t max)
{
    size_t most = max < CLF_READ_MAX ? max : CLF_READ_MAX;
    return key_len <= most && binary_len <= most - key_len &&
           sizeof(entry_header) <= most - key_len - binary_len;
}

void clf_cache_store(clctx *ctx, cl_program program, const char *source,
                     const char *options)
{
    if (!cache_enabled(ctx))
        return;
    size_t key_len = 0, binary_len = 0;
    char *key = make_key(ctx, source, options, &key_len);
    /* No entry fits a cap below its key (CLFRAME_CACHE_MAX=0): the binary,
     * which can cost PoCL seconds to make, is not even asked for. */
    int may_fit = key && entry_fits(key_len, 0, ctx->cache_max);
    char *dir = may_fit ? clf_cache_dir() : NULL;
    char *path = dir ? clf_cache_path(dir, key, key_len, "bin") : NULL;
    unsigned char *binary =
        path && clf_make_dirs(dir, 0700) == 0
            ? program_binary(program, &binary_len) : NULL;
    if (binary && entry_fits(key_len, binary_len, ctx->cache_max) &&
        write_entry(path, key, key_len, binary, binary_len) == 0)
        evict(dir, ctx->cache_max, strrchr(path, '/') + 1);
    free(binary);
    free(path);
    free(dir);
    free(key);
}

/* ---- looking at it and clearing it --------------------------------------- */

/* Opens the cache's folder for the user's own look at it: its path in
 * usage->dir, *dir_fd open on it, or -1 when it is not made yet. 0, or an
 * error (who: the caller) saying why there is no folder to look at. */
static int open_cache_dir(const char *who, clframe_cache_usage *usage,
                          int *dir_fd)
{
    *dir_fd = -1;
    char *dir = cache_dir_named();
    if (!dir)
        return clframe_fail(CLFRAME_ERR_IO, "%s: no cache folder: neither "
                            "XDG_CACHE_HOME nor HOME is an absolute path",
                            who);
    int too_long = strlen(dir) >= sizeof usage->dir;
    snprintf(usage->dir, sizeof usage->dir, "%s", dir);
    free(dir);
    if (too_long)
        return clframe_fail(CLFRAME_ERR_IO, "%s: the cache folder's path is "
                            "longer than %zu bytes", who,
                            sizeof usage->dir - 1);
    *dir_fd = open(usage->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*dir_fd < 0 && errno == ENOENT)
        return 0;
    if (*dir_fd < 0)
        return clframe_fail(CLFRAME_ERR_IO, "%s: %s: %s", who, usage->dir,
                            strerror(errno));
    usage->exists = 1;
    if (!folder_trusted(usage->dir)) {
        close(*dir_fd);
        *dir_fd = -1;
        return clframe_fail(CLFRAME_ERR_IO, "%s: %s: not yours alone "
                            "(others can write to it), so it is no cache",
                            who, usage->dir);
    }
    return 0;
}

/* What both public calls start with: the cap, the folder and its entries
 * (list, empty when the folder is not made yet). 0, or an error. */
static int look(const char *who, clframe_cache_usage *usage, int *dir_fd,
                entry_list *list)
{
    *list = (entry_list){0};
    *dir_fd = -1;
    if (!usage)
        return clframe_fail(CLFRAME_ERR_USAGE, "%s: NULL usage", who);
    memset(usage, 0, sizeof *usage);
    size_t max = 0;
    int err = clf_cache_max(&max);
    if (err || (err = open_cache_dir(who, usage, dir_fd)) != 0)
        return err;
    usage->on = !clf_cache_switched_off();
    usage->max = max;
    if (*dir_fd >= 0 && list_entries(*dir_fd, list) != 0)
        return clframe_fail(CLFRAME_ERR_IO, "%s: %s: %s", who, usage->dir,
                            strerror(errno));
    return 0;
}

int clframe_cache_get_usage(clframe_cache_usage *usage)
{
    int dir_fd;
    entry_list list;
    int err = look("clframe_cache_get_usage", usage, &dir_fd, &list);
    if (!err) {
        usage->entries = list.n;
        usage->bytes = list.bytes;
    }
    free(list.at);
    if (dir_fd >= 0)
        close(dir_fd);
    return err;
}

int clframe_cache_clear(clframe_cache_usage *removed)
{
    int dir_fd;
    entry_list list;
    int err = look("clframe_cache_clear", removed, &dir_fd, &list);
    int failed = 0;             /* errno of the first entry left */
    const char *left = NULL;
    for (size_t i = 0; !err && i < list.n; i++) {
        if (unlinkat(dir_fd, list.at[i].name, 0) == 0) {
            removed->entries++;
            removed->bytes += list.at[i].bytes;
        } else if (errno != ENOENT && !failed) {
            failed = errno;         /* gone already: another cleared it */
            left = list.at[i].name;
        }
    }
    if (failed)
        err = clframe_fail(CLFRAME_ERR_IO, "clframe_cache_clear: %s/%s: %s",
                           removed->dir, left, strerror(failed));
    free(list.at);
    if (dir_fd >= 0)
        close(dir_fd);
    return err;
}
