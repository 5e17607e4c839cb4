#include "mg_test.h"
static void usage(void){}
static const mg_case cases[]={{"usage",usage}};
MG_TEST_MAIN("ci", cases)
