// sites_gtest.cc - an unchanged GoogleTest program with planted leaks for
// allocation sites through the probe (tests/sites/test_sites.c): each Leak
// test leaves memory behind on a line marked SITE:<kind>.
#include <gtest/gtest.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

static void *volatile keep[64];
static int nkeep;

__attribute__((noinline)) static void leak_mmap()
{
	int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	void *p = mmap(nullptr, 8u << 20, prot, flags, -1, 0); // SITE:mmap
	keep[nkeep++] = p;
}

__attribute__((noinline)) static void leak_malloc()
{
	void *p = malloc(3u << 20); // SITE:malloc
	keep[nkeep++] = p;
}

__attribute__((noinline)) static void leak_new()
{
	char *p = new char[2u << 20]; // SITE:new
	keep[nkeep++] = p;
}

// C++ names: a member function in a namespace and a function template,
// named as written (the report demangles them and cuts their parameters).
namespace store
{
struct Pool {
	__attribute__((noinline)) void grow(size_t bytes);
};
void Pool::grow(size_t bytes)
{
	void *p = malloc(bytes); // SITE:method
	keep[nkeep++] = p;
}
template <typename T> __attribute__((noinline)) T *fill(size_t n)
{
	T *p = static_cast<T *>(malloc(n * sizeof(T))); // SITE:template
	keep[nkeep++] = p;
	return p;
}
} // namespace store

TEST(Leak, Mmap)
{
	leak_mmap();
}
TEST(Leak, Malloc)
{
	leak_malloc();
}
TEST(Leak, New)
{
	leak_new();
}
TEST(Leak, Method)
{
	store::Pool pool;
	pool.grow(5u << 20);
}
TEST(Leak, Template)
{
	store::fill<int>(1u << 20);
}
// An allocation that fails: the test fails of it (near the ceiling: retried).
TEST(Nomem, Fails)
{
	volatile size_t huge = SIZE_MAX - 65536;
	void *volatile p = malloc(huge);
	EXPECT_NE(p, nullptr);
	free(p);
}
TEST(Clean, Frees)
{
	void *p = malloc(8u << 20);
	free(p);
	char *q = new char[4u << 20];
	delete[] q;
}

int main(int argc, char **argv)
{
	testing::InitGoogleTest(&argc, argv);
	return RUN_ALL_TESTS();
}
