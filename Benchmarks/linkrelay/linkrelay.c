// linkrelay: the network benchmark's workaround for ngIRCd 26.1's compressed server links.
//
// ngIRCd compresses a link with zlib when both servers offer it (a `Z` in the flags and options
// of their PASS lines), and 26.1's compressed links fail under load with "Compression error: code -2"
// and a netsplit (ngIRCd issue 342; the fix was to build without zlib, which Debian's package
// does not). This relay sits on one link: it listens on 127.0.0.1:LISTEN, and for each
// connection connects to 127.0.0.1:TARGET and passes the bytes both ways unchanged, except that
// in the first line each side sends, if it is a PASS line, the Zs are taken out of its flags
// and options, so neither side sees the other offer compression. One process serves every
// connection (a benchmark network has two links), so its CPU time is the relay's whole cost:
// chatload reads it (--relay-pid) and the report shows it beside ngIRCd's.
//
//   linkrelay LISTEN TARGET
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void die(const char *what) {
    perror(what);
    exit(1);
}

static int loopback_socket(int port, int listening) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) die("socket");
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (listening) {
        if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) die("bind");
        if (listen(fd, 8) < 0) die("listen");
    } else {
        if (connect(fd, (struct sockaddr *)&address, sizeof address) < 0) die("connect");
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

static int write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t n = write(fd, bytes, length);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        bytes += n;
        length -= (size_t)n;
    }
    return 0;
}

// One direction: until its first line is complete, bytes are held; that line, if it is a
// PASS line, loses its Zs (strip_compression).
typedef struct {
    int from, to, first_line_done;
    char held[4096];
    size_t held_length;
} direction;

// `[:<prefix> ]PASS <password> <version> <implementation>|<version>:<flags> <options>`: every Z
// after the password goes (the flag and the option both offer compression). ngIRCd answers a
// link it accepted with a prefix, and one it opened without.
static void strip_compression(char *line, size_t *length) {
    size_t i = 0;
    if (*length > 0 && line[0] == ':') {
        while (i < *length && line[i] != ' ') i++;
        i++;
    }
    if (i + 5 > *length || strncmp(line + i, "PASS ", 5) != 0) return;
    i += 5;
    while (i < *length && line[i] != ' ') i++; /* the password */
    while (i < *length && line[i] != '\r' && line[i] != '\n') {
        if (line[i] == 'Z') {
            memmove(line + i, line + i + 1, *length - i - 1);
            (*length)--;
        } else {
            i++;
        }
    }
}

// Moves what `from` has to `to`; returns 0 at end of stream or on an error.
static int pump(direction *d) {
    char buffer[65536];
    ssize_t n = read(d->from, buffer, sizeof buffer);
    if (n <= 0) return n < 0 && errno == EINTR;
    if (d->first_line_done) return write_all(d->to, buffer, (size_t)n) == 0;
    size_t take = (size_t)n;
    if (d->held_length + take > sizeof d->held) take = sizeof d->held - d->held_length;
    memcpy(d->held + d->held_length, buffer, take);
    d->held_length += take;
    char *end = memchr(d->held, '\n', d->held_length);
    if (!end && d->held_length < sizeof d->held && take == (size_t)n) return 1;
    size_t line = end ? (size_t)(end - d->held) + 1 : d->held_length;
    size_t rest = d->held_length - line;
    strip_compression(d->held, &line);
    d->first_line_done = 1;
    if (write_all(d->to, d->held, line) < 0) return 0;
    if (write_all(d->to, d->held + d->held_length - rest, rest) < 0) return 0;
    return write_all(d->to, buffer + take, (size_t)n - take) == 0;
}

#define MAX_LINKS 16

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: linkrelay LISTEN-PORT TARGET-PORT\n");
        return 64;
    }
    signal(SIGPIPE, SIG_IGN);
    int target = atoi(argv[2]);
    int listener = loopback_socket(atoi(argv[1]), 1);
    printf("listening\n");
    fflush(stdout);
    // Entry 0 is the listener; then two per link, each direction's source.
    struct pollfd fds[1 + 2 * MAX_LINKS];
    direction *directions[1 + 2 * MAX_LINKS] = {0};
    int count = 1;
    fds[0] = (struct pollfd){.fd = listener, .events = POLLIN};
    for (;;) {
        if (poll(fds, (nfds_t)count, -1) < 0) {
            if (errno == EINTR) continue;
            die("poll");
        }
        for (int i = 1; i < count; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (pump(directions[i])) continue;
            // The link ended: close both ends and drop both entries (a pair is i and i^1 in
            // the numbering that starts at 1: 1-2, 3-4, …).
            int first = (i % 2 == 1) ? i : i - 1;
            close(fds[first].fd);
            close(fds[first + 1].fd);
            free(directions[first]);
            free(directions[first + 1]);
            for (int j = first; j + 2 < count; j++) {
                fds[j] = fds[j + 2];
                directions[j] = directions[j + 2];
            }
            count -= 2;
            i = first - 1;
        }
        if ((fds[0].revents & POLLIN) && count + 2 <= 1 + 2 * MAX_LINKS) {
            int client = accept(listener, NULL, NULL);
            if (client < 0) continue;
            int server = loopback_socket(target, 0);
            direction *up = calloc(1, sizeof *up), *down = calloc(1, sizeof *down);
            *up = (direction){.from = client, .to = server};
            *down = (direction){.from = server, .to = client};
            fds[count] = (struct pollfd){.fd = client, .events = POLLIN};
            directions[count++] = up;
            fds[count] = (struct pollfd){.fd = server, .events = POLLIN};
            directions[count++] = down;
        }
    }
}
