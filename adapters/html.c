/*
 * html.c - placeholder: the self-contained HTML page (VA timeline per lane,
 * limits and recycles marked) is another task. Renders nothing.
 */
#include "adapters.h"

int html_render(const report *r, const char *path, mg_err *err)
{
	(void)r;
	(void)path;
	return mg_err_set(err, MG_ERROR, "adapter 'html': not built yet");
}
