// chatload: the chat benchmarks' load generator (see Benchmarks/BENCHMARKS.md).
//
// It connects CLIENTS IRC clients to 127.0.0.1:PORT, split over PROCS worker processes, has
// them all join one channel, and then has SENDERS of them send PRIVMSGs carrying
// "<sender> <sequence> <monotonic nanoseconds>". Every client counts what it receives: each
// line is looked at only far enough to find those three numbers. A message missing, repeated
// or out of order at any client fails the run.
//
// Two modes:
//   fan-out  (--messages M): each sender sends M messages as fast as the server takes them:
//            at most --window messages of a sender not yet seen by every client in the
//            sender's own process, so no client's queue on the server grows without bound.
//            With --window 0 the load is open: each sender writes whenever its socket takes
//            more, whatever the others have seen, so it offers more than the server can relay.
//            Clients the server drops are counted (RESULT dropped); the run goes on without
//            them until the rest have everything, or nothing has arrived for 2 s.
//   paced    (--rate R --seconds S): R messages a second in total, spread evenly over the
//            senders, for S seconds; every delivery's latency goes into a histogram.
//
// With several ports (--port P1,P2,P3: servers linked into one network) client i connects to
// the (i mod n)-th, so clients and senders are spread evenly over the servers.
//
// With --server-pid it reads the server's CPU time (utime+stime from /proc/PID/stat) when the
// senders start and when the last delivery has arrived (several PIDs, comma-separated: their
// sum). Programs between the servers (--relay-pid) are measured the same way, apart. It prints "RESULT name value" lines.
// Everything it does is bounded: --timeout seconds for the run, 60 s for connecting.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 4096
#define MAX_SENDERS 256
#define MAX_PROCS 64
#define READ_SIZE 65536
#define LINE_MAX_BYTES 8192
#define HISTOGRAM_US 1000000 /* 1 µs buckets up to 1 s; later ones go to the overflow bucket */

#define MAX_SERVERS 16
static int ports[MAX_SERVERS], port_count = 0;
static int server_pids[MAX_SERVERS], server_pid_count = 0;
static int relay_pids[MAX_SERVERS], relay_pid_count = 0; /* --relay-pid: measured apart */
static int clients = 200, senders = 10, procs = 4, window = 16, timeout_s = 120;
static long messages = 0;      /* fan-out: per sender */
static double rate = 0, seconds = 0; /* paced */
static const char *channel = "#bench";

typedef struct {
    int fd;
    int index; /* client number, 0..clients-1; senders are 0..senders-1 */
    int registered, joined, gone;
    char line[LINE_MAX_BYTES];
    size_t line_len;
    char *out;
    size_t out_len, out_cap;
    long *last; /* last sequence seen from each sender */
} client_t;

typedef struct {
    long deliveries, errors, incomplete, dropped;
    double done_at, cpu_seconds; /* monotonic seconds; the worker's own CPU from go to done */
    uint64_t overflow;
    char first_error[160];
} result_t;

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double own_cpu(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static double process_cpu(int pid) {
    char path[64], buffer[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *file = fopen(path, "r");
    if (!file) return -1;
    size_t length = fread(buffer, 1, sizeof buffer - 1, file);
    fclose(file);
    buffer[length] = 0;
    char *p = strrchr(buffer, ')'); /* the command name may hold spaces */
    if (!p) return -1;
    unsigned long utime = 0, stime = 0;
    /* after ")": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime, &stime) != 2) return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

static void die(const char *what) {
    fprintf(stderr, "chatload: %s: %s\n", what, strerror(errno));
    exit(2);
}

static int epoll_fd;

static void watch(client_t *c, int want_out) {
    struct epoll_event event = {.events = EPOLLIN | (want_out ? EPOLLOUT : 0), .data.ptr = c};
    epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &event);
}

/* Queues bytes for the server and writes what the socket takes now. */
static void send_bytes(client_t *c, const char *bytes, size_t length) {
    if (c->out_len == 0) {
        ssize_t n = send(c->fd, bytes, length, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK) die("send");
            n = 0;
        }
        bytes += n;
        length -= (size_t)n;
        if (length == 0) return;
        watch(c, 1);
    }
    if (c->out_len + length > c->out_cap) {
        c->out_cap = (c->out_len + length) * 2;
        c->out = realloc(c->out, c->out_cap);
    }
    memcpy(c->out + c->out_len, bytes, length);
    c->out_len += length;
}

static void flush_out(client_t *c) {
    while (c->out_len > 0) {
        ssize_t n = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            die("send");
        }
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    }
    watch(c, 0);
}

static result_t result;
static uint32_t *histogram;
static int disconnected;   /* clients the server dropped: with a window the run cannot complete, so it ends */
static double last_delivery_at; /* monotonic seconds */

static void fail(const char *text) {
    result.errors++;
    if (!result.first_error[0]) snprintf(result.first_error, sizeof result.first_error, "%s", text);
}

/* One line from the server, without its CR LF. */
static void handle_line(client_t *c, char *line, size_t length) {
    line[length] = 0;
    char *privmsg = strstr(line, " PRIVMSG ");
    if (privmsg) {
        char *text = strstr(privmsg, " :");
        if (!text) return;
        char *end;
        long sender = strtol(text + 2, &end, 10);
        long sequence = strtol(end, &end, 10);
        uint64_t sent = strtoull(end, &end, 10);
        if (sender < 0 || sender >= senders) {
            fail("a message from an unknown sender");
            return;
        }
        long expected = c->last[sender] + 1;
        if (sequence != expected) {
            char text[160];
            snprintf(text, sizeof text, "client %d: sender %ld's message %ld arrived when %ld was due (%s)", c->index,
                     sender, sequence, expected, sequence < expected ? "repeated or reordered" : "lost");
            fail(text);
        }
        if (sequence > c->last[sender]) c->last[sender] = sequence;
        result.deliveries++;
        last_delivery_at = mono();
        uint64_t micros = (mono_ns() - sent) / 1000;
        if (micros < HISTOGRAM_US) histogram[micros]++;
        else result.overflow++;
        return;
    }
    if (strncmp(line, "PING ", 5) == 0) {
        char reply[LINE_MAX_BYTES + 8];
        int n = snprintf(reply, sizeof reply, "PONG %s\r\n", line + 5);
        send_bytes(c, reply, (size_t)n);
        return;
    }
    if (strncmp(line, "ERROR", 5) == 0) {
        char text[160];
        snprintf(text, sizeof text, "client %d was disconnected: %.120s", c->index, line);
        fail(text);
        return;
    }
    /* ":server 001 nick ..." and ":server 366 nick #chan ..." */
    char *space = strchr(line, ' ');
    if (line[0] == ':' && space) {
        if (strncmp(space, " 001 ", 5) == 0 && !c->registered) {
            c->registered = 1;
            char join[128];
            int n = snprintf(join, sizeof join, "JOIN %s\r\n", channel);
            send_bytes(c, join, (size_t)n);
        } else if (strncmp(space, " 366 ", 5) == 0) {
            c->joined = 1;
        } else if (space[1] == '4' || space[1] == '5') {
            char text[160];
            snprintf(text, sizeof text, "client %d got an error reply: %.120s", c->index, line);
            fail(text);
        }
    }
}

/* Reads what the socket has; returns 0 at end of stream. */
static int read_client(client_t *c, char *buffer) {
    for (;;) {
        ssize_t n = recv(c->fd, buffer, READ_SIZE, 0);
        if (n == 0) return 0;
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 1;
            if (errno == ECONNRESET) return 0;
            die("recv");
        }
        char *p = buffer, *end = buffer + n;
        while (p < end) {
            char *newline = memchr(p, '\n', (size_t)(end - p));
            size_t take = (size_t)((newline ? newline : end) - p);
            if (c->line_len + take >= LINE_MAX_BYTES) {
                fail("a line longer than 8 KiB");
                c->line_len = 0;
            } else {
                memcpy(c->line + c->line_len, p, take);
                c->line_len += take;
            }
            if (!newline) break;
            size_t length = c->line_len;
            if (length > 0 && c->line[length - 1] == '\r') length--;
            handle_line(c, c->line, length);
            c->line_len = 0;
            p = newline + 1;
        }
        if (n < READ_SIZE) return 1;
    }
}

static int connect_client(int index) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)ports[index % port_count])};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) die("connect");
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

static void write_all(int fd, const void *bytes, size_t length) {
    const char *p = bytes;
    while (length > 0) {
        ssize_t n = write(fd, p, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("write to the parent");
        }
        p += n;
        length -= (size_t)n;
    }
}

static void read_all(int fd, void *bytes, size_t length) {
    char *p = bytes;
    while (length > 0) {
        ssize_t n = read(fd, p, length);
        if (n <= 0) {
            if (n < 0 && errno == EINTR) continue;
            fprintf(stderr, "chatload: a worker ended without its results\n");
            exit(2);
        }
        p += n;
        length -= (size_t)n;
    }
}

/* The last message of sender `s` that every other client of this process has: the window
   counts from there, so that no client's queue on the server runs far behind. */
static long slowest_seen(const client_t *mine, int count, int s) {
    long slowest = -1;
    for (int k = 0; k < count; k++)
        if (mine[k].index != s && (slowest < 0 || mine[k].last[s] < slowest)) slowest = mine[k].last[s];
    return slowest < 0 ? 0 : slowest;
}

/* One worker process: the clients whose number modulo procs is `worker`. */
static void run_worker(int worker, int report_fd, int control_fd) {
    histogram = calloc(HISTOGRAM_US, sizeof *histogram);
    char *buffer = malloc(READ_SIZE);
    epoll_fd = epoll_create1(0);
    int count = 0;
    client_t *mine = calloc((size_t)clients, sizeof *mine);
    for (int i = worker; i < clients; i += procs) {
        client_t *c = &mine[count++];
        c->index = i;
        c->fd = connect_client(c->index);
        c->last = calloc((size_t)senders, sizeof *c->last);
        struct epoll_event event = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &event);
        char hello[128];
        int n = snprintf(hello, sizeof hello, "NICK b%d\r\nUSER b%d 0 * :chatload\r\n", i, i);
        send_bytes(c, hello, (size_t)n);
    }
    struct epoll_event control = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, control_fd, &control);

    /* Phase 1: register and join, then tell the parent and wait for the go-ahead. */
    enum { JOINING, READY, RUNNING, DONE } phase = JOINING;
    double deadline = mono() + 60;
    long per_sender = messages > 0 ? messages : (long)(rate / senders * seconds + 0.5);
    double interval = rate > 0 ? senders / rate : 0;
    double go_at = 0, cpu_at_go = 0;
    long next_sequence[MAX_SENDERS];
    for (int s = 0; s < senders; s++) next_sequence[s] = 1;
    struct epoll_event events[256];
    for (;;) {
        double now = mono();
        if (now > deadline) {
            if (phase == JOINING || phase == READY) {
                fprintf(stderr, "chatload: worker %d: clients did not all join within 60 s\n", worker);
                exit(3);
            }
            if (phase == RUNNING) {
                result.done_at = now;
                result.cpu_seconds = own_cpu() - cpu_at_go;
                fail("the run did not finish in time");
                phase = DONE;
                write_all(report_fd, "D", 1);
                write_all(report_fd, &result, sizeof result);
                write_all(report_fd, histogram, HISTOGRAM_US * sizeof *histogram);
            }
            if (now > deadline + 30) exit(3);
        }
        if (phase == RUNNING) {
            /* Send what is due: paced by time, or by the window as fast as the server takes it. */
            for (int k = 0; k < count; k++) {
                client_t *c = &mine[k];
                if (c->index >= senders) continue;
                int s = c->index;
                while (next_sequence[s] <= per_sender) {
                    if (interval > 0) {
                        double due = go_at + (next_sequence[s] - 1) * interval + s * interval / senders;
                        if (mono() < due) break;
                    } else if (c->gone || (window == 0 && c->out_len > 0)) {
                        break; /* open loop: only as fast as the socket takes it */
                    } else if (window > 0 && next_sequence[s] - slowest_seen(mine, count, s) > window) {
                        break;
                    }
                    char message[128];
                    int n = snprintf(message, sizeof message, "PRIVMSG %s :%d %ld %llu\r\n", channel, s,
                                     next_sequence[s], (unsigned long long)mono_ns());
                    send_bytes(c, message, (size_t)n);
                    next_sequence[s]++;
                }
            }
            /* Done when every client here (still connected) has every message of every other
               sender; with a window, at the first drop; open, once nothing arrives for 2 s. */
            int complete = 1;
            for (int k = 0; k < count && complete; k++)
                for (int s = 0; s < senders && !mine[k].gone; s++)
                    if (s != mine[k].index && mine[k].last[s] < per_sender) {
                        complete = 0;
                        break;
                    }
            int quiet = disconnected && now - (last_delivery_at > go_at ? last_delivery_at : go_at) > 2;
            if (complete || (disconnected && window > 0) || quiet) {
                result.done_at = mono();
                result.cpu_seconds = own_cpu() - cpu_at_go;
                phase = DONE;
                write_all(report_fd, "D", 1);
                write_all(report_fd, &result, sizeof result);
                write_all(report_fd, histogram, HISTOGRAM_US * sizeof *histogram);
            }
        }
        int wait_ms = 50;
        if (phase == RUNNING && interval > 0) wait_ms = 1;
        int ready = epoll_wait(epoll_fd, events, 256, wait_ms);
        if (ready < 0 && errno != EINTR) die("epoll_wait");
        for (int e = 0; e < ready; e++) {
            client_t *c = events[e].data.ptr;
            if (!c) {
                char command = 0;
                if (read(control_fd, &command, 1) <= 0 || command == 'Q') {
                    for (int k = 0; k < count; k++) close(mine[k].fd);
                    exit(0);
                }
                if (command == 'G' && phase == READY) {
                    phase = RUNNING;
                    go_at = mono();
                    cpu_at_go = own_cpu();
                    deadline = go_at + timeout_s;
                }
                continue;
            }
            if (events[e].events & EPOLLOUT) flush_out(c);
            if (events[e].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
                if (!read_client(c, buffer)) {
                    char text[160];
                    snprintf(text, sizeof text, "client %d: the server closed the connection", c->index);
                    fail(text);
                    epoll_ctl(epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
                    c->gone = 1;
                    result.dropped++;
                    disconnected++;
                    if (phase == JOINING || phase == READY) {
                        fprintf(stderr, "chatload: worker %d: %s\n", worker, text);
                        exit(3);
                    }
                }
            }
        }
        if (phase == JOINING) {
            int joined = 1;
            for (int k = 0; k < count; k++) joined &= mine[k].joined;
            if (joined) {
                phase = READY;
                write_all(report_fd, "R", 1);
            }
        }
    }
}

/* The CPU seconds of every process of `pids`, summed; -1 if one cannot be read. */
static double processes_cpu(const int *pids, int count) {
    double total = 0;
    for (int i = 0; i < count; i++) {
        double cpu = process_cpu(pids[i]);
        if (cpu < 0) return -1;
        total += cpu;
    }
    return total;
}

/* Parses "a,b,c" into at most MAX_SERVERS positive numbers; returns how many, or -1. */
static int parse_list(const char *value, int *into) {
    int count = 0;
    const char *p = value;
    while (*p) {
        char *end;
        long number = strtol(p, &end, 10);
        if (end == p || number <= 0 || number > 0x7fffffff || count == MAX_SERVERS) return -1;
        into[count++] = (int)number;
        if (*end == ',') end++;
        else if (*end) return -1;
        p = end;
    }
    return count;
}

static void usage(void) {
    fprintf(stderr,
            "usage: chatload --port P[,P…] [--clients 200] [--senders 10] [--procs 4] [--server-pid PID[,PID…]]\n"
            "                [--relay-pid PID[,PID…]]\n"
            "                (--messages M [--window 16, 0 for an open loop] | --rate R --seconds S)\n"
            "                [--timeout 120]\n");
    exit(64);
}

int main(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const char *name = argv[i], *value = argv[i + 1];
        if (!strcmp(name, "--port")) port_count = parse_list(value, ports);
        else if (!strcmp(name, "--clients")) clients = atoi(value);
        else if (!strcmp(name, "--senders")) senders = atoi(value);
        else if (!strcmp(name, "--procs")) procs = atoi(value);
        else if (!strcmp(name, "--window")) window = atoi(value);
        else if (!strcmp(name, "--messages")) messages = atol(value);
        else if (!strcmp(name, "--rate")) rate = atof(value);
        else if (!strcmp(name, "--seconds")) seconds = atof(value);
        else if (!strcmp(name, "--timeout")) timeout_s = atoi(value);
        else if (!strcmp(name, "--server-pid")) server_pid_count = parse_list(value, server_pids);
        else if (!strcmp(name, "--relay-pid")) relay_pid_count = parse_list(value, relay_pids);
        else if (!strcmp(name, "--channel")) channel = value;
        else usage();
    }
    if (port_count <= 0 || server_pid_count < 0 || relay_pid_count < 0 || window < 0 || clients < 2 || clients > MAX_CLIENTS || senders < 1 || senders > MAX_SENDERS ||
        senders >= clients || procs < 1 || procs > MAX_PROCS || (messages <= 0 && (rate <= 0 || seconds <= 0)))
        usage();
    if (clients < 2 * procs) usage();
    signal(SIGPIPE, SIG_IGN);

    int report[MAX_PROCS], control[MAX_PROCS];
    pid_t pids[MAX_PROCS];
    for (int w = 0; w < procs; w++) {
        int up[2], down[2];
        if (pipe(up) < 0 || pipe(down) < 0) die("pipe");
        pids[w] = fork();
        if (pids[w] < 0) die("fork");
        if (pids[w] == 0) {
            close(up[0]);
            close(down[1]);
            run_worker(w, up[1], down[0]);
        }
        close(up[1]);
        close(down[0]);
        report[w] = up[0];
        control[w] = down[1];
    }
    double setup_start = mono();
    for (int w = 0; w < procs; w++) {
        char ready = 0;
        read_all(report[w], &ready, 1);
    }
    fprintf(stderr, "chatload: %d clients joined %s in %.2f s\n", clients, channel, mono() - setup_start);
    double server_cpu_at_go = server_pid_count ? processes_cpu(server_pids, server_pid_count) : 0;
    double relay_cpu_at_go = relay_pid_count ? processes_cpu(relay_pids, relay_pid_count) : 0;
    double go_at = mono();
    for (int w = 0; w < procs; w++) write_all(control[w], "G", 1);

    long deliveries = 0, errors = 0, dropped = 0;
    double done_at = go_at, load_cpu = 0, server_cpu_at_done = 0;
    uint64_t overflow = 0;
    uint64_t *merged = calloc(HISTOGRAM_US, sizeof *merged);
    uint32_t *part = malloc(HISTOGRAM_US * sizeof *part);
    char first_error[160] = "";
    for (int w = 0; w < procs; w++) {
        char done = 0;
        read_all(report[w], &done, 1);
        result_t r;
        read_all(report[w], &r, sizeof r);
        read_all(report[w], part, HISTOGRAM_US * sizeof *part);
        deliveries += r.deliveries;
        errors += r.errors;
        dropped += r.dropped;
        load_cpu += r.cpu_seconds;
        overflow += r.overflow;
        if (r.done_at > done_at) done_at = r.done_at;
        if (!first_error[0] && r.first_error[0]) memcpy(first_error, r.first_error, sizeof first_error);
        for (int i = 0; i < HISTOGRAM_US; i++) merged[i] += part[i];
    }
    /* Every worker has reported, so the last delivery has arrived: the server's CPU time now. */
    server_cpu_at_done = server_pid_count ? processes_cpu(server_pids, server_pid_count) : 0;
    double relay_cpu_at_done = relay_pid_count ? processes_cpu(relay_pids, relay_pid_count) : 0;
    for (int w = 0; w < procs; w++) write_all(control[w], "Q", 1);
    for (int w = 0; w < procs; w++) waitpid(pids[w], NULL, 0);

    long per_sender = messages > 0 ? messages : (long)(rate / senders * seconds + 0.5);
    long expected = per_sender * senders * (clients - 1);
    double elapsed = done_at - go_at;
    printf("RESULT sent %ld\n", per_sender * senders);
    printf("RESULT deliveries %ld\n", deliveries);
    printf("RESULT expected_deliveries %ld\n", expected);
    printf("RESULT errors %ld\n", errors);
    printf("RESULT dropped %ld\n", dropped);
    printf("RESULT delivered_fraction %.4f\n", expected ? (double)deliveries / (double)expected : 0);
    printf("RESULT seconds %.6f\n", elapsed);
    printf("RESULT deliveries_per_second %.1f\n", deliveries / elapsed);
    printf("RESULT load_cpu_seconds %.3f\n", load_cpu);
    if (server_pid_count) {
        double server_cpu = server_cpu_at_done - server_cpu_at_go;
        printf("RESULT server_cpu_seconds %.3f\n", server_cpu);
        printf("RESULT server_cpu_seconds_per_million %.4f\n", server_cpu / (deliveries / 1e6));
    }
    if (relay_pid_count) {
        double relay_cpu = relay_cpu_at_done - relay_cpu_at_go;
        printf("RESULT relay_cpu_seconds %.3f\n", relay_cpu);
        printf("RESULT relay_cpu_seconds_per_million %.4f\n", relay_cpu / (deliveries / 1e6));
    }
    uint64_t total = 0;
    for (int i = 0; i < HISTOGRAM_US; i++) total += merged[i];
    total += overflow;
    const double fractions[] = {0.5, 0.99};
    const char *names[] = {"p50_us", "p99_us"};
    for (int f = 0; f < 2; f++) {
        uint64_t rank = (uint64_t)(fractions[f] * (double)total + 0.999999), seen = 0;
        long value = -1;
        for (int i = 0; i < HISTOGRAM_US; i++) {
            seen += merged[i];
            if (seen >= rank && rank > 0) {
                value = i;
                break;
            }
        }
        if (value < 0) value = HISTOGRAM_US; /* beyond the histogram: at least 1 s */
        printf("RESULT %s %ld\n", names[f], value);
    }
    if (first_error[0]) fprintf(stderr, "chatload: first error: %s\n", first_error);
    int ok = errors == 0 && deliveries == expected;
    printf("RESULT ok %d\n", ok);
    return ok ? 0 : 1;
}
