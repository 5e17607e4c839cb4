/* drain: reads standard input to its end as memguard's driver shim reads a
 * probed program (runner/drivers/shim.c, PACE_US): a read, then 1 ms asleep
 * unless the read filled the buffer. run-bench's gtest-probe mode. */
#include <time.h>
#include <unistd.h>

int main(void)
{
	static char buf[64 * 1024];
	struct timespec pace = {0, 1000 * 1000};
	ssize_t n;
	while ((n = read(0, buf, sizeof(buf))) > 0)
		if ((size_t)n < sizeof(buf))
			nanosleep(&pace, NULL);
	return n < 0;
}
