// SPDX-License-Identifier: GPL-2.0
/*
 * pkt-flood: send small UDP datagrams to 127.0.0.1 (or ADDR) as fast as one
 * thread can (sendmmsg, 64 per call) for a given time, for scripts/bench-skb.sh.
 *   pkt-flood SECONDS [PAYLOAD_BYTES] [PORT] [ADDR]
 *   pkt-flood sink ADDR PORT
 * Prints "sent N seconds S pps P". A bound receiver that is never read keeps
 * the kernel from answering with ICMP port unreachable: on loopback the flood
 * binds its own, for another address "sink" binds one there until killed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1, t0, t;
	int len = argc > 2 ? atoi(argv[2]) : 16, port = argc > 3 ? atoi(argv[3]) : 7009;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct mmsghdr msg[BATCH];
	struct iovec iov[BATCH];
	unsigned long long sent = 0;
	static char buf[65536];
	int rx, tx;

	if (argc == 4 && !strcmp(argv[1], "sink")) {
		a.sin_port = htons(atoi(argv[3]));
		rx = socket(AF_INET, SOCK_DGRAM, 0);
		if (inet_pton(AF_INET, argv[2], &a.sin_addr) != 1 || rx < 0 ||
		    bind(rx, (struct sockaddr *)&a, sizeof(a))) {
			perror("pkt-flood: sink");
			return 2;
		}
		printf("sink %s:%s\n", argv[2], argv[3]);
		fflush(stdout);
		pause();
		return 0;
	}
	if (len < 0 || len > 65000) {
		fprintf(stderr, "pkt-flood: payload 0..65000\n");
		return 2;
	}
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (argc > 4 && inet_pton(AF_INET, argv[4], &a.sin_addr) != 1) {
		fprintf(stderr, "pkt-flood: bad address %s\n", argv[4]);
		return 2;
	}
	rx = -1;
	if (a.sin_addr.s_addr == htonl(INADDR_LOOPBACK)) {
		rx = socket(AF_INET, SOCK_DGRAM, 0);
		if (rx < 0 || bind(rx, (struct sockaddr *)&a, sizeof(a))) {
			perror("pkt-flood: receiver");
			return 2;
		}
	}
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0) {
		perror("pkt-flood: socket");
		return 2;
	}
	memset(buf, 'x', sizeof(buf));
	memset(msg, 0, sizeof(msg));
	for (int i = 0; i < BATCH; i++) {
		iov[i].iov_base = buf;
		iov[i].iov_len = len;
		msg[i].msg_hdr.msg_name = &a;
		msg[i].msg_hdr.msg_namelen = sizeof(a);
		msg[i].msg_hdr.msg_iov = &iov[i];
		msg[i].msg_hdr.msg_iovlen = 1;
	}
	t0 = now();
	do {
		int n = sendmmsg(tx, msg, BATCH, 0);

		if (n > 0)
			sent += n;
		t = now();
	} while (t - t0 < secs);
	printf("sent %llu seconds %.3f pps %.0f\n", sent, t - t0, sent / (t - t0));
	close(tx);
	if (rx >= 0)
		close(rx);
	return 0;
}
