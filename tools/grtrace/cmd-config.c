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

/* The line of @key in @conf, its length in *@n; NULL if there is none. */
static const char *find_key(const char *conf, const char *key, size_t *n)
{
	size_t klen = strlen(key);
	const char *p = conf;

	while (*p) {
		*n = strcspn(p, "\n");
		if (*n > klen && !strncmp(p, key, klen) && p[klen] == '=')
			return p;
		p += *n + (p[*n] == '\n');
	}
	return NULL;
}

/*
 * The module refused the write @text as a whole (EINVAL), changing
 * nothing, and says why only in its debug log: name the settings whose
 * key it does not have, or else the one setting, or the settings, of
 * which a value was refused.
 */
static void explain_refusal(const char *text)
{
	char conf[CONFIG_MAX], key[WRITE_MAX + 1];
	const char *p;
	int unknown = 0, settings = 0;
	size_t n, k;

	if (debugfs_read("config", conf, sizeof(conf)) < 0)
		conf[0] = '\0';
	for (p = text; *p; p += n + (p[n] == '\n')) {
		n = strcspn(p, "\n");
		k = strcspn(p, "=");
		settings++;
		snprintf(key, sizeof(key), "%.*s", (int)k, p);
		/* reset_stats is an action: the config file does not list it. */
		if (!conf[0] || !strcmp(key, "reset_stats") ||
		    find_key(conf, key, &k))
			continue;
		err_msg("config: the module has no key '%s' (see 'grtrace config'); nothing was changed",
			key);
		unknown++;
	}
	if (unknown)
		return;
	n = strlen(text);
	if (n && text[n - 1] == '\n')
		n--;
	/* One line: the settings as given, a space between each two. */
	snprintf(key, sizeof(key), "%.*s", (int)n, text);
	for (k = 0; key[k]; k++)
		if (key[k] == '\n')
			key[k] = ' ';
	err_msg("config: the module refused %s '%s' (a value the key does not take); nothing was changed",
		settings > 1 ? "one of the settings" : "the setting", key);
}

static int apply(const char *text)
{
	int err = debugfs_write_quiet("config", text);

	if (!err)
		return 0;
	if (err == -EINVAL)
		explain_refusal(text);
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
	const char *p;
	size_t n;

	p = find_key(conf, key, &n);
	if (p) {
		printf("%.*s\n", (int)n, p);
		return 0;
	}
	err_msg("config: no key '%s' (see 'grtrace config')", key);
	return -1;
}

/*
 * Every argument that is no KEY=VALUE names a key the module has: checked
 * before anything is written, so that a bad one changes nothing.
 */
static int check_queries(int argc, char **argv, const char *conf)
{
	int i, ret = 0;
	size_t n;

	for (i = 0; i < argc; i++) {
		if (strchr(argv[i], '='))
			continue;
		if (!find_key(conf, argv[i], &n)) {
			err_msg("config: no key '%s' (see 'grtrace config'); nothing was changed",
				argv[i]);
			ret = -1;
		}
	}
	return ret;
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
	for (i = 0; i < argc; i++) {
		if (!argv[i][0])
			usage_error("config", "config: an empty argument");
		if (argv[i][0] == '-' && !strchr(argv[i], '='))
			usage_error("config", "config: option '%s' after a setting (options come first)",
				    argv[i]);
		queries += !strchr(argv[i], '=');
	}
	/* Queries and settings: the keys asked for exist, or nothing is set. */
	if (queries && argc > queries &&
	    (debugfs_read("config", conf, sizeof(conf)) < 0 ||
	     check_queries(argc, argv, conf) < 0))
		return 1;
	if (join_assignments(argc, argv, text, sizeof(text)) && apply(text) < 0)
		return 1;
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
