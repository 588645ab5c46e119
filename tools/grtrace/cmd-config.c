// SPDX-License-Identifier: GPL-2.0
/*
 * grtrace config: show or change the module's settings (its config file).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "grtrace.h"
#include "util.h"

static const char config_help[] =
	"Usage: grtrace config [KEY[=VALUE]]...\n"
	"\n"
	"Show or change the settings of the grtrace module (its config file).\n"
	"Without arguments, print every KEY=VALUE.  KEY prints that key's line;\n"
	"KEY=VALUE sets it.  All the assignments go to the module in one write,\n"
	"which it applies all or nothing; the keys asked for are printed after it.\n"
	"Settings stay as set: config changes nothing else and restores nothing.\n"
	"\n"
	"Keys:\n"
	"  level               off, normal or verbose (verbose keeps CTX_SWITCH, IRQ)\n"
	"  clock               monotonic or boottime; only while tracing is stopped\n"
	"  filter_type_mask    bit (1 << type) keeps a job event type\n"
	"  filter_engine_mask  bit (1 << engine) keeps an engine class\n"
	"  filter_ring_id      keep one ring id, or -1 for all\n"
	"  reset_stats=1       zero the module's counters (an action, not listed)\n"
	"\n"
	"Options:\n"
	"  -h, --help  show this help\n";

static const struct option config_opts[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

#define CONFIG_MAX	4096	/* bytes of the config file we read */
#define WRITE_MAX	256	/* the longest write the module accepts */

/* The KEY=VALUE arguments as one "a=1\nb=2\n" write; 0 if there are none. */
static int join_assignments(int argc, char **argv, char *buf, size_t len)
{
	size_t n = 0;
	int i, found = 0;

	for (i = 0; i < argc; i++) {
		if (!strchr(argv[i], '='))
			continue;
		if (argv[i][0] == '=' || strchr(argv[i], '\n'))
			usage_error("config", "config: invalid setting '%s'", argv[i]);
		if (n + strlen(argv[i]) + 1 >= len)
			usage_error("config", "config: the settings exceed the %zu bytes the module takes in one write",
				    len - 1);
		n += (size_t)snprintf(buf + n, len - n, "%s\n", argv[i]);
		found = 1;
	}
	return found;
}

static int apply(const char *text)
{
	int err = debugfs_write_quiet("config", text);

	if (!err)
		return 0;
	if (err == -EINVAL)
		err_msg("config: the module refused the settings (an unknown key or a value out of range); nothing was changed");
	else if (err == -EBUSY)
		err_msg("config: a setting cannot change while tracing is started ('grtrace stop' first); nothing was changed");
	else {
		char path[4096];

		errno = -err;
		debugfs_path(path, sizeof(path), "config");
		err_debugfs(path, "cannot write to");
	}
	return -1;
}

/* Print the line of @key from @conf; -1 if there is none. */
static int print_key(const char *conf, const char *key)
{
	size_t klen = strlen(key);
	const char *p = conf;

	while (*p) {
		size_t n = strcspn(p, "\n");

		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			printf("%.*s\n", (int)n, p);
			return 0;
		}
		p += n + (p[n] == '\n');
	}
	err_msg("config: no key '%s' (see 'grtrace config')", key);
	return -1;
}

int cmd_config(int argc, char **argv)
{
	char conf[CONFIG_MAX], text[WRITE_MAX + 1];
	int c, i, ret = 0, queries = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", config_opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(config_help, stdout);
			return 0;
		}
		usage_error("config", "config: unknown option '%s'", argv[optind - 1]);
	}
	argc -= optind;
	argv += optind;
	if (join_assignments(argc, argv, text, sizeof(text)) && apply(text) < 0)
		return 1;
	for (i = 0; i < argc; i++)
		queries += !strchr(argv[i], '=');
	if (argc && !queries)
		return 0;
	if (debugfs_read("config", conf, sizeof(conf)) < 0)
		return 1;
	if (!argc) {
		fputs(conf, stdout);
		return 0;
	}
	for (i = 0; i < argc; i++)
		if (!strchr(argv[i], '=') && print_key(conf, argv[i]) < 0)
			ret = 1;
	return ret;
}
