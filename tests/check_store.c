/*
 * check_store: the counter store: interning and escaping, counter deltas
 * (first sample, source timestamps, 32-bit wraps, resets, max_rate
 * glitches, the port's line rate as a bound, discontinuities, scale), gauges,
 * out-of-order samples, staleness on an injected monotonic clock, withdrawal
 * and slot reuse, owner conflicts, the rate ring, statistics, the lock-free
 * figures (against store_read, slot reuse, torn words), and concurrent writers
 * and readers.
 */
#include "config.h"

#include "store.h"

#include <check.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEC INT64_C(1000000000)
#define MS  INT64_C(1000000)
/* A plausible source timestamp: 2024-01-01T00:00:00Z. */
#define T0 (INT64_C(1704067200) * SEC)

struct fake_clock {
	int64_t mono;
	int64_t real;
};

static struct fake_clock clk;
static struct store *st;
static store_label dev, port, owner_a, owner_b;

static int64_t fake_mono(void *ctx)
{
	return ((struct fake_clock *)ctx)->mono;
}

static int64_t fake_real(void *ctx)
{
	return ((struct fake_clock *)ctx)->real;
}

static void setup(void)
{
	struct store_opts o = { .mono_ns = fake_mono,
				.real_ns = fake_real,
				.clock_ctx = &clk };
	clk.mono = 1000 * SEC;
	clk.real = T0 + 500 * SEC;
	st = store_new(&o);
	dev = store_intern(st, "leaf1");
	port = store_intern(st, "Ethernet0");
	owner_a = store_intern(st, "target-a");
	owner_b = store_intern(st, "target-b");
}

static void teardown(void)
{
	store_free(st);
	st = NULL;
}

static struct store_key mkkey(store_label d, store_label p, enum fm_counter c,
			      uint32_t sub)
{
	struct store_key k = {
		.device = d, .port = p, .sub = sub, .counter = (uint16_t)c
	};
	return k;
}

/* A counter series on leaf1/Ethernet0 with the given spec. */
static store_handle counter(enum fm_counter c, uint32_t sub, uint8_t width,
			    double scale, double max_rate)
{
	struct store_key k = mkkey(dev, port, c, sub);
	struct store_series_spec sp = { .owner = owner_a,
					.width = width,
					.scale = scale,
					.max_rate = max_rate };
	store_handle h = store_series(st, &k, &sp);
	ck_assert_uint_ne(h, 0);
	return h;
}

static struct store_sample sample(store_handle h)
{
	struct store_sample s;
	ck_assert_int_eq(store_read(st, store_handle_slot(h), &s), 0);
	return s;
}

static struct store_stats stats(void)
{
	struct store_stats s;
	store_get_stats(st, &s);
	return s;
}

START_TEST(test_intern_returns_same_id_for_same_string)
{
	store_label a = store_intern(st, "spine7");
	store_label b = store_intern(st, "spine7");
	store_label c = store_intern(st, "spine8");

	ck_assert_uint_ne(a, 0);
	ck_assert_uint_eq(a, b);
	ck_assert_uint_ne(a, c);
	ck_assert_uint_eq(store_intern(st, "leaf1"), dev);
	ck_assert_str_eq(store_label_str(st, a), "spine7");
	ck_assert_str_eq(store_label_str(st, c), "spine8");
	ck_assert_uint_eq(store_intern(st, NULL), 0);
	ck_assert_ptr_null(store_label_str(st, 0));
	ck_assert_ptr_null(store_label_str(st, 9999));
	ck_assert_ptr_null(store_label_prom(st, 9999));
	ck_assert_str_eq(store_label_str(st, store_intern(st, "")), "");
}
END_TEST

START_TEST(test_intern_keeps_prometheus_escaped_copy)
{
	store_label l = store_intern(st, "a\\b\"c\nd");
	ck_assert_str_eq(store_label_str(st, l), "a\\b\"c\nd");
	ck_assert_str_eq(store_label_prom(st, l), "a\\\\b\\\"c\\nd");
	ck_assert_str_eq(store_label_prom(st, dev), "leaf1");
}
END_TEST

START_TEST(test_intern_many_labels_keeps_strings_and_ids)
{
	char buf[32];
	store_label ids[5000];

	for (unsigned i = 0; i < 5000; i++) {
		snprintf(buf, sizeof buf, "port-%u", i);
		ids[i] = store_intern(st, buf);
	}
	for (unsigned i = 0; i < 5000; i++) {
		snprintf(buf, sizeof buf, "port-%u", i);
		ck_assert_uint_eq(store_intern(st, buf), ids[i]);
		ck_assert_str_eq(store_label_str(st, ids[i]), buf);
	}
	ck_assert_uint_eq(stats().labels, 5000 + 4);
}
END_TEST

#define INTERN_THREADS 4
#define INTERN_LABELS  2000

static void *intern_thread(void *arg)
{
	store_label *ids = arg;
	char buf[32];
	for (unsigned i = 0; i < INTERN_LABELS; i++) {
		snprintf(buf, sizeof buf, "shared-%u", i);
		ids[i] = store_intern(st, buf);
		/* A reader of an id published by another thread. */
		ck_assert_str_eq(store_label_str(st, ids[i]), buf);
	}
	return NULL;
}

START_TEST(test_intern_is_thread_safe)
{
	static store_label ids[INTERN_THREADS][INTERN_LABELS];
	pthread_t t[INTERN_THREADS];

	for (int i = 0; i < INTERN_THREADS; i++)
		pthread_create(&t[i], NULL, intern_thread, ids[i]);
	for (int i = 0; i < INTERN_THREADS; i++)
		pthread_join(t[i], NULL);
	for (int i = 1; i < INTERN_THREADS; i++)
		ck_assert_mem_eq(ids[0], ids[i], sizeof ids[0]);
	ck_assert_uint_eq(stats().labels, INTERN_LABELS + 4);
}
END_TEST

START_TEST(test_series_is_one_record_per_key)
{
	store_handle a = counter(FM_C_PFC_RX_FRAMES, 3, 64, 1, 0);
	store_handle b = counter(FM_C_PFC_RX_FRAMES, 3, 64, 1, 0);
	store_handle c = counter(FM_C_PFC_RX_FRAMES, 4, 64, 1, 0);
	struct store_key k = mkkey(dev, port, FM_C_PFC_RX_FRAMES, 3);

	ck_assert_uint_eq(a, b);
	ck_assert_uint_ne(a, c);
	ck_assert_uint_eq(store_lookup(st, &k), a);
	k.sub = 5;
	ck_assert_uint_eq(store_lookup(st, &k), 0);
	ck_assert_uint_eq(stats().series, 2);
	struct store_sample s = sample(c);
	ck_assert_uint_eq(s.key.sub, 4);
	ck_assert_uint_eq(s.key.counter, FM_C_PFC_RX_FRAMES);
	ck_assert_uint_eq(s.owner, owner_a);
	ck_assert_uint_eq(s.kind, FM_KIND_COUNTER);
	ck_assert(!s.has_value);
}
END_TEST

START_TEST(test_invalid_keys_and_specs_are_refused)
{
	struct store_key k = mkkey(dev, port, FM_C_NONE, 0);
	struct store_series_spec sp = { .owner = owner_a };

	ck_assert_uint_eq(store_series(st, &k, NULL), 0);
	k.counter = FM_C__COUNT;
	ck_assert_uint_eq(store_series(st, &k, NULL), 0);
	k = mkkey(dev, port, FM_C_PFC_RX_FRAMES, 8);
	ck_assert_uint_eq(store_series(st, &k, NULL), 0);
	k = mkkey(dev, port, FM_C_BYTES_RX, 1);
	ck_assert_uint_eq(store_series(st, &k, NULL), 0);
	k.sub = 0;
	sp.width = 16;
	ck_assert_uint_eq(store_series(st, &k, &sp), 0);
	sp.width = 32;
	sp.scale = -1;
	ck_assert_uint_eq(store_series(st, &k, &sp), 0);
	sp.scale = NAN;
	ck_assert_uint_eq(store_series(st, &k, &sp), 0);
	sp.scale = 1;
	sp.max_rate = INFINITY;
	ck_assert_uint_eq(store_series(st, &k, &sp), 0);
	ck_assert_uint_eq(stats().series, 0);

	ck_assert_int_eq(store_update(st, 0, 1, T0), -EINVAL);
	ck_assert_int_eq(store_update(st, (store_handle)1 << 32 | 77, 1, T0),
			 -EINVAL);
	ck_assert_int_eq(store_mark_discontinuity(st, 0), -EINVAL);
	struct store_sample s;
	ck_assert_int_eq(store_read(st, 12345, &s), -ENOENT);
	float r[4];
	ck_assert_uint_eq(store_read_ring(st, 12345, r, 4), 0);
}
END_TEST

START_TEST(test_first_sample_gives_no_rate)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);

	ck_assert_int_eq(store_update(st, h, 123456, T0), 0);
	struct store_sample s = sample(h);
	ck_assert(s.has_value);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, 123456);
	ck_assert_uint_eq(s.raw, 123456);
	ck_assert_int_eq(s.ts_ns, T0);
	ck_assert_uint_eq(s.ring_n, 0);
}
END_TEST

START_TEST(test_rate_uses_source_timestamps)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);

	ck_assert_int_eq(store_update(st, h, 1000, T0 + 10 * SEC), 0);
	/* Arrival times (mono) are irrelevant to the rate. */
	clk.mono += 7 * SEC;
	ck_assert_int_eq(store_update(st, h, 3000, T0 + 12 * SEC), 0);
	struct store_sample s = sample(h);
	ck_assert(s.has_rate);
	ck_assert_double_eq_tol(s.rate, 1000, 1e-9);
	ck_assert_double_eq(s.value, 3000);
	ck_assert_int_eq(store_update(st, h, 3500, T0 + 12 * SEC + 250 * MS),
			 0);
	s = sample(h);
	ck_assert_double_eq_tol(s.rate, 2000, 1e-6);
	ck_assert_double_eq(s.value, 3500);
	ck_assert_uint_eq(stats().resets_total, 0);
}
END_TEST

START_TEST(test_zero_timestamp_uses_injected_real_clock)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);

	ck_assert_int_eq(store_update(st, h, 0, 0), 0);
	ck_assert_int_eq(sample(h).ts_ns, clk.real);
	clk.real += 4 * SEC;
	ck_assert_int_eq(store_update(st, h, 400, 0), 0);
	struct store_sample s = sample(h);
	ck_assert_int_eq(s.ts_ns, clk.real);
	ck_assert_double_eq_tol(s.rate, 100, 1e-9);
}
END_TEST

START_TEST(test_counter32_wrap_gives_modular_delta)
{
	store_handle h = counter(FM_C_DISCARDS_RX, 0, 32, 1, 0);

	ck_assert_int_eq(store_update(st, h, 4294967000u, T0), 0);
	ck_assert_int_eq(store_update(st, h, 200, T0 + SEC), 0);
	struct store_sample s = sample(h);
	ck_assert(s.has_rate);
	ck_assert_double_eq_tol(s.rate, 496, 1e-9);
	ck_assert_double_eq(s.value, 4294967000.0 + 496);
	ck_assert_uint_eq(s.raw, 200);
	ck_assert_uint_eq(stats().resets_total, 0);

	/* With a max_rate the same wrap is plausible and accepted. */
	store_handle m = counter(FM_C_DISCARDS_TX, 0, 32, 1, 1000);
	ck_assert_int_eq(store_update(st, m, 4294967000u, T0), 0);
	ck_assert_int_eq(store_update(st, m, 200, T0 + SEC), 0);
	s = sample(m);
	ck_assert(s.has_rate);
	ck_assert_double_eq_tol(s.rate, 496, 1e-9);
	ck_assert_uint_eq(stats().resets_total, 0);
}
END_TEST

START_TEST(test_counter32_keeps_raw_modulo_width)
{
	store_handle h = counter(FM_C_NIC_OUT_OF_BUFFER, 0, 32, 1, 0);

	/* sysfs prints 32-bit hardware counters as u64. */
	ck_assert_int_eq(store_update(st, h, UINT64_C(0x100000010), T0), 0);
	ck_assert_uint_eq(sample(h).raw, 0x10);
	ck_assert_int_eq(store_update(st, h, UINT64_C(0x200000020), T0 + SEC),
			 0);
	ck_assert_double_eq_tol(sample(h).rate, 16, 1e-9);
}
END_TEST

START_TEST(test_counter32_implausible_decrease_is_reset)
{
	store_handle h = counter(FM_C_DISCARDS_RX, 0, 32, 1, 0);

	ck_assert_int_eq(store_update(st, h, 1000000, T0), 0);
	ck_assert_int_eq(store_update(st, h, 2000000, T0 + SEC), 0);
	/* Wrapped delta would be ~2^32 - 10^6 >= 2^31: a reset. */
	ck_assert_int_eq(store_update(st, h, 10, T0 + 2 * SEC), 0);
	struct store_sample s = sample(h);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, 2000000);
	ck_assert_uint_eq(s.raw, 10);
	ck_assert_uint_eq(stats().resets_total, 1);
	/* Counting resumes from the new base. */
	ck_assert_int_eq(store_update(st, h, 110, T0 + 3 * SEC), 0);
	s = sample(h);
	ck_assert(s.has_rate);
	ck_assert_double_eq_tol(s.rate, 100, 1e-9);
	ck_assert_double_eq(s.value, 2000100);

	/* With a max_rate, a wrap far above it is a reset too. */
	store_handle m = counter(FM_C_DISCARDS_TX, 0, 32, 1, 1e6);
	ck_assert_int_eq(store_update(st, m, 2000000000u, T0), 0);
	ck_assert_int_eq(store_update(st, m, 100, T0 + SEC), 0);
	s = sample(m);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, 2000000000.0);
	ck_assert_uint_eq(stats().resets_total, 2);
}
END_TEST

START_TEST(test_counter64_decrease_is_reset)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);

	ck_assert_int_eq(store_update(st, h, UINT64_MAX - 10, T0), 0);
	/* No 64-bit wrap is plausible: this is a reboot, not 21 bytes. */
	ck_assert_int_eq(store_update(st, h, 10, T0 + SEC), 0);
	struct store_sample s = sample(h);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, (double)(UINT64_MAX - 10));
	ck_assert_uint_eq(s.raw, 10);
	ck_assert_uint_eq(stats().resets_total, 1);
	ck_assert_int_eq(store_update(st, h, 5, T0 + 2 * SEC), 0);
	ck_assert_uint_eq(stats().resets_total, 2);
	ck_assert(!sample(h).has_rate);
}
END_TEST

START_TEST(test_max_rate_glitch_is_discontinuity)
{
	store_handle h = counter(FM_C_PACKETS_RX, 0, 64, 1, 1000);

	ck_assert_int_eq(store_update(st, h, 100, T0), 0);
	ck_assert_int_eq(store_update(st, h, 1100, T0 + SEC), 0);
	ck_assert_double_eq_tol(sample(h).rate, 1000, 1e-9);
	/* 10^9 packets in a second at most 1000/s: no spike. */
	ck_assert_int_eq(store_update(st, h, 1000001100, T0 + 2 * SEC), 0);
	struct store_sample s = sample(h);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, 1100);
	ck_assert_uint_eq(s.raw, 1000001100);
	ck_assert_uint_eq(stats().resets_total, 1);
	/* Twice the max_rate is still accepted (timestamp jitter). */
	ck_assert_int_eq(store_update(st, h, 1000003100, T0 + 3 * SEC), 0);
	s = sample(h);
	ck_assert(s.has_rate);
	ck_assert_double_eq_tol(s.rate, 2000, 1e-9);
	ck_assert_double_eq(s.value, 3100);
	float ring[8];
	ck_assert_uint_eq(store_read_ring(st, store_handle_slot(h), ring, 8),
			  2);
	ck_assert_float_eq(ring[0], 1000);
	ck_assert_float_eq(ring[1], 2000);
}
END_TEST

START_TEST(test_marked_discontinuity_rebases_next_sample)
{
	store_handle h = counter(FM_C_CNP_SENT, 0, 64, 1, 0);

	ck_assert_int_eq(store_update(st, h, 100, T0), 0);
	ck_assert_int_eq(store_update(st, h, 200, T0 + SEC), 0);
	ck_assert_int_eq(store_mark_discontinuity(st, h), 0);
	ck_assert_int_eq(store_mark_discontinuity(st, h), 0);
	/* A plausible increase, but the source says it is a new epoch. */
	ck_assert_int_eq(store_update(st, h, 250, T0 + 2 * SEC), 0);
	struct store_sample s = sample(h);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, 200);
	ck_assert_uint_eq(s.raw, 250);
	ck_assert_uint_eq(stats().resets_total, 1);
	ck_assert_int_eq(store_update(st, h, 260, T0 + 3 * SEC), 0);
	s = sample(h);
	ck_assert(s.has_rate);
	ck_assert_double_eq(s.value, 210);
	ck_assert_uint_eq(stats().resets_total, 1);
}
END_TEST

START_TEST(test_owner_discontinuity_rebases_only_that_owner)
{
	store_handle a = counter(FM_C_CNP_SENT, 0, 64, 1, 0);
	struct store_key k =
	    mkkey(store_intern(st, "leaf2"), port, FM_C_CNP_SENT, 0);
	struct store_series_spec sp = { .owner = owner_b };
	store_handle b = store_series(st, &k, &sp);

	ck_assert_uint_ne(b, 0);
	ck_assert_int_eq(store_update(st, a, 100, T0), 0);
	ck_assert_int_eq(store_update(st, b, 100, T0), 0);
	store_mark_owner_discontinuity(st, owner_a);
	ck_assert_int_eq(store_update(st, a, 150, T0 + SEC), 0);
	ck_assert_int_eq(store_update(st, b, 150, T0 + SEC), 0);
	ck_assert(!sample(a).has_rate);
	ck_assert_double_eq(sample(a).value, 100);
	ck_assert(sample(b).has_rate);
	ck_assert_double_eq(sample(b).value, 150);
	ck_assert_uint_eq(stats().resets_total, 1);
}
END_TEST

START_TEST(test_scale_applies_to_total_and_rate)
{
	/* mlx5 pause duration in µs -> seconds. */
	store_handle us = counter(FM_C_PFC_RX_PAUSE, 3, 64, 1e-6, 0);
	ck_assert_int_eq(store_update(st, us, 2000000, T0), 0);
	ck_assert_double_eq_tol(sample(us).value, 2.0, 1e-12);
	ck_assert_int_eq(store_update(st, us, 2500000, T0 + SEC), 0);
	struct store_sample s = sample(us);
	ck_assert_double_eq_tol(s.value, 2.5, 1e-12);
	ck_assert_double_eq_tol(s.rate, 0.5, 1e-12);

	/* IB port_rcv_data in 4-byte words -> bytes. */
	store_handle w = counter(FM_C_BYTES_TX, 0, 64, 4, 0);
	ck_assert_int_eq(store_update(st, w, 1000, T0), 0);
	ck_assert_int_eq(store_update(st, w, 1500, T0 + 2 * SEC), 0);
	s = sample(w);
	ck_assert_double_eq(s.value, 6000);
	ck_assert_double_eq_tol(s.rate, 1000, 1e-9);
	ck_assert_uint_eq(s.raw, 1500);
}
END_TEST

START_TEST(test_scaled_totals_are_rounded_once)
{
	/* ns -> s: 4,500,000 ns is the double nearest 0.0045, so the
	 * exposition prints "0.0045", however the total was summed. */
	store_handle h = counter(FM_C_PFC_RX_PAUSE, 3, 64, 1e-9, 0);
	ck_assert_int_eq(store_update(st, h, 1500000, T0), 0);
	ck_assert_int_eq(store_update(st, h, 3000000, T0 + SEC), 0);
	ck_assert_int_eq(store_update(st, h, 4500000, T0 + 2 * SEC), 0);
	ck_assert(sample(h).value == 0.0045);
	ck_assert(sample(h).rate == 0.0015);
}
END_TEST

START_TEST(test_spec_change_of_scale_rebases)
{
	store_handle h = counter(FM_C_BYTES_TX, 0, 64, 1, 0);
	ck_assert_int_eq(store_update(st, h, 1000, T0), 0);
	ck_assert_uint_eq(counter(FM_C_BYTES_TX, 0, 64, 4, 0), h);
	ck_assert_int_eq(store_update(st, h, 1100, T0 + SEC), 0);
	ck_assert(!sample(h).has_rate);
	ck_assert_double_eq(sample(h).value, 1000);
	ck_assert_int_eq(store_update(st, h, 1200, T0 + 2 * SEC), 0);
	ck_assert_double_eq(sample(h).value, 1400);
	ck_assert_double_eq_tol(sample(h).rate, 400, 1e-9);
}
END_TEST

START_TEST(test_gauge_keeps_scaled_value_without_rate)
{
	struct store_key k = mkkey(dev, port, FM_C_LINK_SPEED, 0);
	struct store_series_spec sp = { .owner = owner_a, .scale = 1e9 };
	store_handle g = store_series(st, &k, &sp);

	ck_assert_uint_ne(g, 0);
	ck_assert_int_eq(store_set_gauge(st, g, 100, T0), 0);
	ck_assert_int_eq(store_set_gauge(st, g, 400, T0 + SEC), 0);
	struct store_sample s = sample(g);
	ck_assert_uint_eq(s.kind, FM_KIND_GAUGE);
	ck_assert(s.has_value);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, 400e9);
	ck_assert_int_eq(s.ts_ns, T0 + SEC);
	/* A lower value is not a reset for a gauge. */
	ck_assert_int_eq(store_set_gauge(st, g, 25, T0 + 2 * SEC), 0);
	ck_assert_double_eq(sample(g).value, 25e9);
	ck_assert_uint_eq(stats().resets_total, 0);

	store_handle c = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	ck_assert_int_eq(store_update(st, g, 1, T0 + 3 * SEC), -EINVAL);
	ck_assert_int_eq(store_set_gauge(st, c, 1, T0 + 3 * SEC), -EINVAL);
	ck_assert_int_eq(store_set_gauge(st, g, NAN, T0 + 3 * SEC), -EINVAL);
	ck_assert_double_eq(sample(g).value, 25e9);
	ck_assert_uint_eq(stats().rejected_total, 1);
}
END_TEST

START_TEST(test_older_timestamp_is_rejected)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	store_handle g = store_series(
	    st, &(struct store_key){ dev, port, 0, FM_C_LINK_UP }, NULL);

	ck_assert_int_eq(store_update(st, h, 100, T0 + 10 * SEC), 0);
	ck_assert_int_eq(store_update(st, h, 200, T0 + 11 * SEC), 0);
	ck_assert_int_eq(store_update(st, h, 300, T0 + 10 * SEC), -ERANGE);
	ck_assert_int_eq(store_update(st, h, 300, -5), -ERANGE);
	struct store_sample s = sample(h);
	ck_assert_uint_eq(s.raw, 200);
	ck_assert_int_eq(s.ts_ns, T0 + 11 * SEC);
	ck_assert_double_eq(s.value, 200);
	ck_assert_int_eq(store_set_gauge(st, g, 1, T0 + 5 * SEC), 0);
	ck_assert_int_eq(store_set_gauge(st, g, 0, T0 + 4 * SEC), -ERANGE);
	ck_assert_double_eq(sample(g).value, 1);

	struct store_stats t = stats();
	ck_assert_uint_eq(t.rejected_total, 3);
	ck_assert_uint_eq(t.updates_total, 3);
}
END_TEST

START_TEST(test_equal_timestamp_keeps_raw_without_rate)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);

	ck_assert_int_eq(store_update(st, h, 100, T0), 0);
	ck_assert_int_eq(store_update(st, h, 200, T0 + SEC), 0);
	ck_assert_int_eq(store_update(st, h, 260, T0 + SEC), 0);
	struct store_sample s = sample(h);
	ck_assert_uint_eq(s.raw, 260);
	ck_assert_double_eq(s.value, 200);
	ck_assert_double_eq_tol(s.rate, 100, 1e-9);
	ck_assert_uint_eq(s.ring_n, 1);
	ck_assert_int_eq(store_update(st, h, 360, T0 + 2 * SEC), 0);
	s = sample(h);
	ck_assert_double_eq(s.value, 300);
	ck_assert_double_eq_tol(s.rate, 100, 1e-9);
	ck_assert_uint_eq(stats().resets_total, 0);
}
END_TEST

START_TEST(test_staleness_follows_monotonic_clock)
{
	struct store_key k = mkkey(dev, port, FM_C_BYTES_RX, 0);
	struct store_series_spec sp = { .owner = owner_a, .interval_ms = 2000 };
	store_handle h = store_series(st, &k, &sp);
	store_handle d = counter(FM_C_BYTES_TX, 0, 64, 1, 0);

	ck_assert_int_eq(store_update(st, h, 1, T0), 0);
	ck_assert_int_eq(store_update(st, d, 1, T0), 0);
	struct store_sample s = sample(h);
	ck_assert(!s.stale);
	ck_assert_int_eq(s.age_ns, 0);
	ck_assert_uint_eq(s.interval_ms, 2000);
	ck_assert_uint_eq(sample(d).interval_ms, 1000);

	/* Default: 5 intervals. d (1 s default) goes stale at 5 s. */
	clk.mono += 5 * SEC - 1;
	ck_assert(!sample(d).stale);
	clk.mono += 1;
	ck_assert(sample(d).stale);
	ck_assert(!sample(h).stale);
	ck_assert_int_eq(sample(h).age_ns, 5 * SEC);
	ck_assert_uint_eq(stats().stale_series, 1);
	clk.mono += 5 * SEC;
	ck_assert(sample(h).stale);
	ck_assert_uint_eq(stats().stale_series, 2);

	/* A sample refreshes it, whatever its source timestamp. */
	ck_assert_int_eq(store_update(st, h, 2, T0 + SEC), 0);
	ck_assert(!sample(h).stale);
	ck_assert_uint_eq(stats().stale_series, 1);

	store_set_opts(st, 0, 2, 500);
	clk.mono += 1 * SEC;
	ck_assert(!sample(h).stale);
	clk.mono += 3 * SEC;
	ck_assert(sample(h).stale);
	ck_assert_uint_eq(sample(d).interval_ms, 500);

	/* A series that never received a sample goes stale too. */
	store_handle n = counter(FM_C_CNP_SENT, 0, 64, 1, 0);
	ck_assert(!sample(n).stale);
	clk.mono += 1 * SEC;
	ck_assert(sample(n).stale);
	ck_assert(!sample(n).has_value);
}
END_TEST

START_TEST(test_withdraw_owner_stales_handles_and_reuses_slots)
{
	store_handle a1 = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	store_handle a2 = counter(FM_C_BYTES_TX, 0, 64, 1, 0);
	struct store_key kb =
	    mkkey(store_intern(st, "leaf2"), port, FM_C_BYTES_RX, 0);
	struct store_series_spec sb = { .owner = owner_b };
	store_handle b = store_series(st, &kb, &sb);

	ck_assert_int_eq(store_update(st, a1, 10, T0), 0);
	ck_assert_int_eq(store_update(st, a1, 20, T0 + SEC), 0);
	ck_assert_int_eq(store_update(st, b, 10, T0), 0);
	ck_assert_uint_eq(store_slots(st), 3);

	ck_assert_uint_eq(store_withdraw_owner(st, owner_a), 2);
	ck_assert_uint_eq(store_withdraw_owner(st, owner_a), 0);
	ck_assert_int_eq(store_update(st, a1, 30, T0 + 2 * SEC), -ESTALE);
	ck_assert_int_eq(store_update(st, a2, 30, T0 + 2 * SEC), -ESTALE);
	ck_assert_int_eq(store_mark_discontinuity(st, a1), -ESTALE);
	struct store_sample s;
	ck_assert_int_eq(store_read(st, store_handle_slot(a1), &s), -ENOENT);
	float ring[4];
	ck_assert_uint_eq(store_read_ring(st, store_handle_slot(a1), ring, 4),
			  0);
	struct store_key k1 = mkkey(dev, port, FM_C_BYTES_RX, 0);
	ck_assert_uint_eq(store_lookup(st, &k1), 0);
	ck_assert_uint_eq(stats().series, 1);
	/* Other owners are untouched and the index still finds them. */
	ck_assert_uint_eq(store_lookup(st, &kb), b);
	ck_assert_int_eq(store_update(st, b, 20, T0 + SEC), 0);

	/* Resolving again reuses a freed slot with a new generation. */
	store_handle n1 = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	store_handle n2 = counter(FM_C_BYTES_TX, 0, 64, 1, 0);
	ck_assert_uint_eq(store_slots(st), 3);
	ck_assert_uint_ne(n1, a1);
	ck_assert_uint_ne(n2, a2);
	ck_assert(store_handle_slot(n1) == store_handle_slot(a1) ||
		  store_handle_slot(n1) == store_handle_slot(a2));
	ck_assert_int_eq(store_update(st, a1, 30, T0 + 2 * SEC), -ESTALE);
	s = sample(n1);
	ck_assert(!s.has_value);
	ck_assert_uint_eq(s.ring_n, 0);
	ck_assert_int_eq(store_update(st, n1, 5, T0 + 3 * SEC), 0);
	ck_assert(!sample(n1).has_rate);
	ck_assert_double_eq(sample(n1).value, 5);
	ck_assert_uint_eq(stats().series, 3);
	/* Statistics of withdrawn series are kept. */
	ck_assert_uint_eq(stats().updates_total, 5);
}
END_TEST

START_TEST(test_owner_conflict_is_rejected)
{
	store_handle a = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	struct store_key k = mkkey(dev, port, FM_C_BYTES_RX, 0);
	struct store_series_spec sp = { .owner = owner_b };

	ck_assert_uint_eq(store_series(st, &k, &sp), 0);
	ck_assert_uint_eq(stats().rejected_total, 1);
	ck_assert_uint_eq(sample(a).owner, owner_a);
	/* A plain resolve without a spec finds it. */
	ck_assert_uint_eq(store_series(st, &k, NULL), a);
	ck_assert_uint_eq(stats().series, 1);
}
END_TEST

START_TEST(test_ring_is_oldest_first_and_wraps)
{
	store_set_opts(st, 4, 0, 0);
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	uint32_t slot = store_handle_slot(h);
	float r[8];

	ck_assert_int_eq(store_update(st, h, 0, T0), 0);
	uint64_t mem = stats().memory_bytes;
	ck_assert_uint_eq(store_read_ring(st, slot, r, 8), 0);
	/* Rates 10, 20, ..., 60 per second. */
	uint64_t raw = 0;
	for (int i = 1; i <= 6; i++) {
		raw += (uint64_t)i * 10;
		ck_assert_int_eq(store_update(st, h, raw, T0 + i * SEC), 0);
		ck_assert_uint_eq(sample(h).ring_n, i < 4 ? i : 4);
		if (i == 2) {
			ck_assert_uint_eq(store_read_ring(st, slot, r, 8), 2);
			ck_assert_float_eq(r[0], 10);
			ck_assert_float_eq(r[1], 20);
		}
	}
	/* The ring was allocated at the first rate. */
	ck_assert_uint_gt(stats().memory_bytes, mem);
	ck_assert_uint_eq(store_read_ring(st, slot, r, 8), 4);
	ck_assert_float_eq(r[0], 30);
	ck_assert_float_eq(r[1], 40);
	ck_assert_float_eq(r[2], 50);
	ck_assert_float_eq(r[3], 60);
	/* Fewer than held: the most recent ones, oldest first. */
	ck_assert_uint_eq(store_read_ring(st, slot, r, 2), 2);
	ck_assert_float_eq(r[0], 50);
	ck_assert_float_eq(r[1], 60);
	ck_assert_uint_eq(store_read_ring(st, slot, r, 0), 0);

	/* ring_len applies to series created afterwards. */
	store_set_opts(st, 2, 0, 0);
	ck_assert_int_eq(store_update(st, h, raw + 70, T0 + 7 * SEC), 0);
	ck_assert_uint_eq(store_read_ring(st, slot, r, 8), 4);
	store_handle h2 = counter(FM_C_BYTES_TX, 0, 64, 1, 0);
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(
		    store_update(st, h2, (uint64_t)i * i, T0 + i * SEC), 0);
	ck_assert_uint_eq(store_read_ring(st, store_handle_slot(h2), r, 8), 2);
	ck_assert_float_eq(r[0], 5);
	ck_assert_float_eq(r[1], 7);
}
END_TEST

START_TEST(test_stats_count_series_updates_resets_and_memory)
{
	struct store_stats t = stats();
	ck_assert_uint_eq(t.series, 0);
	ck_assert_uint_eq(t.labels, 4);
	ck_assert_uint_gt(t.memory_bytes, 0);
	uint64_t empty = t.memory_bytes;

	store_handle h[100];
	for (uint32_t i = 0; i < 100; i++) {
		struct store_key k = mkkey(dev, i + 1, FM_C_BYTES_RX, 0);
		h[i] = store_series(st, &k, NULL);
		ck_assert_uint_ne(h[i], 0);
		ck_assert_int_eq(store_update(st, h[i], 10, T0), 0);
		ck_assert_int_eq(store_update(st, h[i], 5, T0 + SEC), 0);
	}
	t = stats();
	ck_assert_uint_eq(t.series, 100);
	ck_assert_uint_eq(t.updates_total, 200);
	ck_assert_uint_eq(t.resets_total, 100);
	ck_assert_uint_eq(t.rejected_total, 0);
	ck_assert_uint_eq(t.stale_series, 0);
	/* At least a slot chunk for the slots themselves. */
	ck_assert_uint_ge(t.memory_bytes, empty + 4096 * 128);
}
END_TEST

START_TEST(test_index_survives_growth_and_deletion)
{
	enum { N = 20000 };
	struct store_series_spec spa = { .owner = owner_a };
	struct store_series_spec spb = { .owner = owner_b };
	static store_handle h[N];

	for (uint32_t i = 0; i < N; i++) {
		struct store_key k = mkkey(dev, i, FM_C_PFC_RX_FRAMES, i % 8);
		h[i] = store_series(st, &k, i % 3 ? &spa : &spb);
		ck_assert_uint_ne(h[i], 0);
	}
	ck_assert_uint_eq(store_withdraw_owner(st, owner_b), (N + 2) / 3);
	for (uint32_t i = 0; i < N; i++) {
		struct store_key k = mkkey(dev, i, FM_C_PFC_RX_FRAMES, i % 8);
		ck_assert_uint_eq(store_lookup(st, &k), i % 3 ? h[i] : 0);
	}
	ck_assert_uint_eq(stats().series, N - (N + 2) / 3);
}
END_TEST

/* Concurrency. Every writer owns its series; the totals must be exact. */

#define CW_THREADS 4
#define CW_SERIES  2000
#define CW_ROUNDS  300

struct cw_arg {
	unsigned id;
	store_handle h[CW_SERIES];
	uint64_t raw[CW_SERIES];
};

static uint64_t cw_increment(unsigned id, unsigned s, unsigned r)
{
	return (id * 7919u + s * 31u + r * 17u) % 1000u + 1;
}

static void *cw_writer(void *p)
{
	struct cw_arg *a = p;
	struct store_series_spec sp = { .owner = owner_a, .width = 64 };

	for (unsigned s = 0; s < CW_SERIES; s++) {
		struct store_key k =
		    mkkey(dev, a->id * CW_SERIES + s + 1, FM_C_PACKETS_RX, 0);
		a->h[s] = store_series(st, &k, &sp);
		ck_assert_uint_ne(a->h[s], 0);
		a->raw[s] = 0;
	}
	for (unsigned r = 0; r < CW_ROUNDS; r++) {
		for (unsigned s = 0; s < CW_SERIES; s++) {
			if (r)
				a->raw[s] += cw_increment(a->id, s, r);
			ck_assert_int_eq(store_update(st, a->h[s], a->raw[s],
						      T0 + (int64_t)r * MS),
					 0);
		}
	}
	return NULL;
}

START_TEST(test_concurrent_writers_keep_exact_totals)
{
	static struct cw_arg args[CW_THREADS];
	pthread_t t[CW_THREADS];

	for (unsigned i = 0; i < CW_THREADS; i++) {
		args[i].id = i;
		pthread_create(&t[i], NULL, cw_writer, &args[i]);
	}
	for (unsigned i = 0; i < CW_THREADS; i++)
		pthread_join(t[i], NULL);
	for (unsigned i = 0; i < CW_THREADS; i++) {
		for (unsigned s = 0; s < CW_SERIES; s++) {
			uint64_t want = 0;
			for (unsigned r = 1; r < CW_ROUNDS; r++)
				want += cw_increment(i, s, r);
			ck_assert_uint_eq(args[i].raw[s], want);
			struct store_sample x = sample(args[i].h[s]);
			ck_assert_uint_eq(x.raw, want);
			ck_assert_double_eq(x.value, (double)want);
			ck_assert_uint_eq(
			    x.ring_n, CW_ROUNDS - 1 < 64 ? CW_ROUNDS - 1 : 64);
		}
	}
	struct store_stats t2 = stats();
	ck_assert_uint_eq(t2.series, CW_THREADS * CW_SERIES);
	ck_assert_uint_eq(t2.updates_total,
			  (uint64_t)CW_THREADS * CW_SERIES * CW_ROUNDS);
	ck_assert_uint_eq(t2.resets_total, 0);
	ck_assert_uint_eq(t2.rejected_total, 0);
}
END_TEST

/*
 * A reader scans while writers run. Series s increases by inc(s) every
 * millisecond of source time, so a consistent copy has value == raw,
 * ts == T0 + raw / inc(s) ms and rate == inc(s) * 1000; a torn copy
 * mixes two updates and breaks one of these.
 */
#define CR_WRITERS 2
#define CR_SERIES  500
#define CR_ROUNDS  400

static atomic_int cr_done;

static uint64_t cr_inc(uint32_t port_id)
{
	return port_id % 5 + 1;
}

struct cr_arg {
	unsigned id;
	store_handle h[CR_SERIES];
};

static uint32_t cr_port(unsigned writer, unsigned s)
{
	return writer * CR_SERIES + s + 1;
}

static void *cr_writer(void *p)
{
	struct cr_arg *a = p;
	for (unsigned r = 0; r < CR_ROUNDS; r++) {
		for (unsigned s = 0; s < CR_SERIES; s++) {
			uint64_t inc = cr_inc(cr_port(a->id, s));
			ck_assert_int_eq(store_update(st, a->h[s], r * inc,
						      T0 + (int64_t)r * MS),
					 0);
		}
	}
	return NULL;
}

static void cr_check(uint32_t slot)
{
	struct store_sample x;
	float ring[64];

	if (store_read(st, slot, &x) != 0 || !x.has_value)
		return;
	uint64_t inc = cr_inc(x.key.port);
	ck_assert_double_eq(x.value, (double)x.raw);
	ck_assert_uint_eq(x.raw % inc, 0);
	ck_assert_int_eq(x.ts_ns, T0 + (int64_t)(x.raw / inc) * MS);
	if (x.has_rate)
		ck_assert_double_eq_tol(x.rate, (double)inc * 1000, 1e-6);
	unsigned n = store_read_ring(st, slot, ring, 64);
	for (unsigned i = 0; i < n; i++)
		ck_assert_float_eq_tol(ring[i], (float)inc * 1000, 1e-3);
}

static void *cr_reader(void *p)
{
	unsigned long *scans = p;
	while (!atomic_load(&cr_done)) {
		uint32_t n = store_slots(st);
		for (uint32_t i = 0; i < n; i++)
			cr_check(i);
		(*scans)++;
	}
	return NULL;
}

START_TEST(test_concurrent_reader_sees_consistent_copies)
{
	static struct cr_arg args[CR_WRITERS];
	pthread_t w[CR_WRITERS], rd;
	unsigned long scans = 0;

	for (unsigned i = 0; i < CR_WRITERS; i++) {
		args[i].id = i;
		for (unsigned s = 0; s < CR_SERIES; s++) {
			struct store_key k =
			    mkkey(dev, cr_port(i, s), FM_C_BYTES_RX, 0);
			args[i].h[s] = store_series(st, &k, NULL);
			ck_assert_uint_ne(args[i].h[s], 0);
		}
	}
	atomic_store(&cr_done, 0);
	pthread_create(&rd, NULL, cr_reader, &scans);
	for (unsigned i = 0; i < CR_WRITERS; i++)
		pthread_create(&w[i], NULL, cr_writer, &args[i]);
	for (unsigned i = 0; i < CR_WRITERS; i++)
		pthread_join(w[i], NULL);
	atomic_store(&cr_done, 1);
	pthread_join(rd, NULL);
	ck_assert_uint_gt(scans, 0);
	for (uint32_t i = 0; i < store_slots(st); i++)
		cr_check(i);
	ck_assert_uint_eq(stats().updates_total,
			  (uint64_t)CR_WRITERS * CR_SERIES * CR_ROUNDS);
}
END_TEST

/* Withdrawal races writers and readers: handles go stale, the writer
 * resolves again, nothing crashes and every update is accounted for. */
#define WW_SERIES 200
#define WW_ROUNDS 300

static void *ww_writer(void *p)
{
	unsigned long *ok = p;
	struct store_series_spec sp = { .owner = owner_b };
	store_handle h[WW_SERIES];

	for (unsigned s = 0; s < WW_SERIES; s++) {
		struct store_key k = mkkey(dev, s + 1, FM_C_BYTES_TX, 0);
		h[s] = store_series(st, &k, &sp);
	}
	for (unsigned r = 1; r <= WW_ROUNDS; r++) {
		for (unsigned s = 0; s < WW_SERIES; s++) {
			int rc;
			/* It may be withdrawn again right after resolving. */
			while ((rc = store_update(st, h[s], r, T0 + r * MS)) ==
			       -ESTALE) {
				struct store_key k =
				    mkkey(dev, s + 1, FM_C_BYTES_TX, 0);
				h[s] = store_series(st, &k, &sp);
				ck_assert_uint_ne(h[s], 0);
			}
			ck_assert_int_eq(rc, 0);
			(*ok)++;
		}
	}
	return NULL;
}

static void *ww_withdrawer(void *p)
{
	float ring[64];
	struct store_sample x;
	(void)p;
	while (!atomic_load(&cr_done)) {
		store_withdraw_owner(st, owner_b);
		for (uint32_t i = 0; i < store_slots(st); i++) {
			if (store_read(st, i, &x) == 0)
				ck_assert_uint_eq(x.owner, owner_b);
			store_read_ring(st, i, ring, 64);
		}
		sched_yield();
	}
	return NULL;
}

START_TEST(test_withdraw_while_writing_is_safe)
{
	pthread_t w, d;
	unsigned long ok = 0;

	atomic_store(&cr_done, 0);
	pthread_create(&d, NULL, ww_withdrawer, NULL);
	pthread_create(&w, NULL, ww_writer, &ok);
	pthread_join(w, NULL);
	atomic_store(&cr_done, 1);
	pthread_join(d, NULL);
	ck_assert_uint_eq(ok, (unsigned long)WW_SERIES * WW_ROUNDS);
	struct store_stats t = stats();
	ck_assert_uint_eq(t.updates_total, (uint64_t)WW_SERIES * WW_ROUNDS);
	ck_assert_uint_le(t.series, WW_SERIES);
	ck_assert_uint_le(store_slots(st), 2 * WW_SERIES);
}
END_TEST

/* Lock-free figures. */

/* The figures of slot (store_figs bounds it). */
static const struct store_fig *fig(uint32_t slot)
{
	const struct store_fig *f = NULL;
	ck_assert_uint_gt(store_figs(st, slot, &f), 0);
	return f;
}

static uint32_t fig_flags(uint32_t slot)
{
	return store_fig_meta(store_fig_head(fig(slot))) &
	       (STORE_FIG_LIVE | STORE_FIG_HAS_VALUE | STORE_FIG_HAS_RATE);
}

static float fig_x(uint32_t slot)
{
	return store_fig_float(store_fig_head(fig(slot)));
}

static float fig_value(uint32_t slot)
{
	return store_fig_value(st, slot);
}

/* The arrival figure of slot, on the figures' millisecond scale. */
static int64_t fig_arrival(uint32_t slot)
{
	return store_fig_arrival_ms(store_fig_stamp(fig(slot)));
}

START_TEST(test_figures_follow_samples_resets_and_gauges)
{
	/* Pause time in µs, read in seconds. */
	store_handle h = counter(FM_C_PFC_RX_PAUSE, 3, 64, 1e-6, 0);
	uint32_t slot = store_handle_slot(h);

	ck_assert_uint_eq(fig_flags(slot), STORE_FIG_LIVE);
	ck_assert(fig_x(slot) == 0 && fig_value(slot) == 0);
	/* Arrival times count milliseconds from the store's creation. */
	ck_assert_int_eq(fig_arrival(slot), store_fig_ms(st, clk.mono));
	ck_assert_int_eq(store_fig_ms(st, clk.mono), 0);
	clk.mono += SEC;
	ck_assert_int_eq(store_fig_ms(st, clk.mono), 1000);
	ck_assert_int_eq(store_fig_ms(st, clk.mono - 5 * SEC), 0);
	ck_assert_int_eq(store_update(st, h, 1000000, T0), 0);
	ck_assert_uint_eq(fig_flags(slot),
			  STORE_FIG_LIVE | STORE_FIG_HAS_VALUE);
	ck_assert(fig_x(slot) == 0);
	ck_assert(fig_value(slot) == 1.0f);
	ck_assert_int_eq(fig_arrival(slot), 1000);
	clk.mono += SEC;
	ck_assert_int_eq(store_update(st, h, 1500000, T0 + SEC), 0);
	ck_assert_uint_eq(fig_flags(slot), STORE_FIG_LIVE |
					       STORE_FIG_HAS_VALUE |
					       STORE_FIG_HAS_RATE);
	ck_assert(fig_x(slot) == 0.5f);
	ck_assert(fig_value(slot) == 1.5f);
	ck_assert_int_eq(fig_arrival(slot), 2000);
	/* A 64-bit decrease is a reset: no rate, the total stays. */
	ck_assert_int_eq(store_update(st, h, 10, T0 + 2 * SEC), 0);
	ck_assert_uint_eq(fig_flags(slot),
			  STORE_FIG_LIVE | STORE_FIG_HAS_VALUE);
	ck_assert(fig_x(slot) == 0);
	ck_assert(fig_value(slot) == 1.5f);

	/* A gauge: both figures are its scaled value; its interval. */
	struct store_key gk = mkkey(dev, port, FM_C_LINK_SPEED, 0);
	struct store_series_spec gs = { .owner = owner_a,
					.scale = 125000,
					.interval_ms = 250 };
	store_handle g = store_series(st, &gk, &gs);
	uint32_t gslot = store_handle_slot(g);
	ck_assert_uint_eq(store_fig_interval_ms(store_fig_stamp(fig(gslot))),
			  250);
	ck_assert_int_eq(store_set_gauge(st, g, 100000, 0), 0);
	ck_assert_uint_eq(fig_flags(gslot),
			  STORE_FIG_LIVE | STORE_FIG_HAS_VALUE);
	ck_assert(fig_x(gslot) == 1.25e10f);
	ck_assert(fig_value(gslot) == 1.25e10f);
	/* A new spec is visible at once. */
	gs.interval_ms = 2000;
	ck_assert_uint_eq(store_series(st, &gk, &gs), g);
	ck_assert_uint_eq(store_fig_interval_ms(store_fig_stamp(fig(gslot))),
			  2000);
	/* An interval beyond 24 bits of ms saturates. */
	gs.interval_ms = 1u << 30;
	ck_assert_uint_eq(store_series(st, &gk, &gs), g);
	ck_assert_uint_eq(store_fig_interval_ms(store_fig_stamp(fig(gslot))),
			  (1u << STORE_FIG_IV_BITS) - 1);
	/* Rejected samples change nothing. */
	ck_assert_int_eq(store_set_gauge(st, g, NAN, 0), -EINVAL);
	ck_assert(fig_x(gslot) == 1.25e10f);
	/* Beyond a float's range the figures saturate. */
	ck_assert_int_eq(store_set_gauge(st, g, -1e300, 0), 0);
	ck_assert(isinf(fig_x(gslot)) && fig_x(gslot) < 0);
	ck_assert(isinf(fig_value(gslot)) && fig_value(gslot) < 0);
}
END_TEST

START_TEST(test_figures_change_generation_when_slot_is_reused)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	uint32_t slot = store_handle_slot(h);
	struct store_key k;
	uint32_t g1, g2;

	ck_assert_int_eq(store_update(st, h, 5, T0), 0);
	ck_assert_int_eq(store_slot_key(st, slot, &k, &g1), 0);
	ck_assert_uint_eq(k.counter, FM_C_BYTES_RX);
	ck_assert_uint_eq(g1, store_fig_gen(store_fig_head(fig(slot))));
	ck_assert_uint_eq(store_withdraw_owner(st, owner_a), 1);
	ck_assert_uint_eq(fig_flags(slot), 0);
	ck_assert(fig_x(slot) == 0 && fig_value(slot) == 0);
	ck_assert_int_eq(store_slot_key(st, slot, &k, &g2), -ENOENT);

	/* The next series takes the slot back with another generation. */
	struct store_key nk = mkkey(dev, port, FM_C_PFC_TX_FRAMES, 6);
	struct store_series_spec sp = { .owner = owner_b };
	store_handle n = store_series(st, &nk, &sp);
	ck_assert_uint_eq(store_handle_slot(n), slot);
	ck_assert_uint_eq(fig_flags(slot), STORE_FIG_LIVE);
	uint32_t fg = store_fig_gen(store_fig_head(fig(slot)));
	ck_assert_uint_ne(fg, g1);
	ck_assert_int_eq(store_slot_key(st, slot, &k, &g2), 0);
	ck_assert_uint_eq(g2, fg);
	ck_assert_uint_eq(k.counter, FM_C_PFC_TX_FRAMES);
	ck_assert_uint_eq(k.sub, 6);
	/* Out of range. */
	const struct store_fig *f;
	ck_assert_uint_eq(store_figs(st, store_slots(st), &f), 0);
	ck_assert_int_eq(store_slot_key(st, store_slots(st), &k, &g2), -ENOENT);
}
END_TEST

/* Every figure agrees with store_read, whatever happened before. */
static void figures_check_all(void)
{
	unsigned k_stale;
	uint32_t def_iv;
	int64_t now = store_fig_ms(st, store_mono_now(st));

	store_stale_rule(st, &k_stale, &def_iv);
	for (uint32_t i = 0; i < store_slots(st); i++) {
		struct store_sample x;
		uint64_t head = store_fig_head(fig(i));
		uint64_t stamp = store_fig_stamp(fig(i));
		uint32_t meta = store_fig_meta(head);
		if (store_read(st, i, &x) < 0) {
			ck_assert_uint_eq(meta & STORE_FIG_LIVE, 0);
			continue;
		}
		ck_assert_uint_ne(meta & STORE_FIG_LIVE, 0);
		ck_assert_int_eq(!!(meta & STORE_FIG_HAS_VALUE), x.has_value);
		ck_assert_int_eq(!!(meta & STORE_FIG_HAS_RATE), x.has_rate);
		float want =
		    x.kind == FM_KIND_COUNTER ? (float)x.rate : (float)x.value;
		ck_assert_float_eq(store_fig_float(head), want);
		/* One multiply here, a division there: a float apart. */
		ck_assert_float_eq_tol(fig_value(i), (float)x.value,
				       fabsf((float)x.value) * 1e-6f + 1e-30f);
		/* The clock moves in whole milliseconds here, so the
		 * millisecond figures are exact. */
		int64_t mono = store_fig_arrival_ms(stamp);
		int64_t age = now > mono ? now - mono : 0;
		ck_assert_int_eq(age * MS, x.age_ns);
		uint32_t iv = store_fig_interval_ms(stamp);
		iv = iv ? iv : def_iv;
		ck_assert_uint_eq(iv, x.interval_ms);
		ck_assert_int_eq(age >= (int64_t)k_stale * iv, x.stale);
		struct store_key key;
		uint32_t g;
		ck_assert_int_eq(store_slot_key(st, i, &key, &g), 0);
		ck_assert_uint_eq(g, store_fig_gen(head));
		ck_assert_uint_eq(key.counter, x.key.counter);
		ck_assert_uint_eq(key.port, x.key.port);
	}
}

START_TEST(test_figures_agree_with_store_read)
{
	enum { N = 48 };
	static const enum fm_counter cs[] = { FM_C_BYTES_RX, FM_C_LINK_SPEED,
					      FM_C_PFC_RX_PAUSE };
	store_handle h[N] = { 0 };
	uint64_t raw[N] = { 0 };
	int64_t ts = T0;
	uint32_t seed = 12345;

	for (unsigned round = 0; round < 400; round++) {
		seed = seed * 1103515245u + 12345u;
		unsigned r = seed >> 8;
		unsigned i = r % N;
		enum fm_counter c = cs[i % 3];
		struct store_key k =
		    mkkey(dev, i + 1, c, c == FM_C_PFC_RX_PAUSE);
		struct store_series_spec sp = {
			.owner = i % 2 ? owner_a : owner_b,
			.scale = c == FM_C_PFC_RX_PAUSE ? 1e-6 : 1,
			.interval_ms =
			    (r >> 8) % 4 ? 0 : 100 * (1 + (r >> 10) % 20)
		};
		ts += 100 * MS;
		clk.mono += (int64_t)((r >> 12) % 900) * MS;
		switch ((r >> 16) % 16) {
		case 0:
			store_withdraw_owner(st, sp.owner);
			break;
		case 1:
			store_mark_owner_discontinuity(st, sp.owner);
			break;
		case 2:
			store_set_opts(st, 0, 1 + (r >> 20) % 6,
				       250 * (1 + (r >> 23) % 8));
			break;
		case 3:
			/* A spec change (interval, sometimes the scale). */
			if (c != FM_C_LINK_SPEED && (r >> 20) % 2)
				sp.scale *= 8;
			h[i] = store_series(st, &k, &sp);
			break;
		default:
			if (!h[i] || store_series(st, &k, NULL) != h[i])
				h[i] = store_series(st, &k, &sp);
			if (c == FM_C_LINK_SPEED) {
				store_set_gauge(st, h[i], (double)(r % 1000),
						ts);
			} else {
				raw[i] += (r >> 4) % 100000;
				if ((r >> 20) % 16 == 0)
					raw[i] = 0;
				store_update(st, h[i], raw[i], ts);
			}
			break;
		}
		figures_check_all();
	}
	ck_assert_uint_gt(store_slots(st), N / 2);
}
END_TEST

/*
 * A reader scans the figures while writers update, withdraw and
 * recreate series: a word is never torn. Every counter advances 1000
 * raw units a second, so a rate is exactly 1000 and a word that says
 * "no rate" carries 0; a free slot carries nothing.
 */
#define FT_SERIES 256
#define FT_ROUNDS 400

static atomic_int ft_done;

static void *ft_writer(void *p)
{
	store_label owner = *(store_label *)p;
	struct store_series_spec sp = { .owner = owner };
	store_handle h[FT_SERIES];

	for (unsigned r = 1; r <= FT_ROUNDS; r++) {
		for (unsigned s = 0; s < FT_SERIES; s++) {
			struct store_key k =
			    mkkey(dev, s + 1, FM_C_BYTES_TX, 0);
			k.device = owner;
			if (r == 1 || store_update(st, h[s], (uint64_t)r * 1000,
						   T0 + r * SEC) == -ESTALE) {
				h[s] = store_series(st, &k, &sp);
				ck_assert_uint_ne(h[s], 0);
			}
		}
		/* Now and then a target goes away and comes back. */
		if (r % 50 == 0)
			store_withdraw_owner(st, owner);
	}
	return NULL;
}

static void *ft_reader(void *p)
{
	unsigned long *scans = p;

	while (!atomic_load(&ft_done)) {
		uint32_t n = store_slots(st), left = 0;
		const struct store_fig *f = NULL;
		for (uint32_t i = 0; i < n; i++, f++) {
			if (!left)
				left = store_figs(st, i, &f);
			ck_assert_uint_gt(left, 0);
			left--;
			uint64_t head = store_fig_head(f);
			uint32_t meta = store_fig_meta(head);
			float x = store_fig_float(head);
			if (meta & STORE_FIG_HAS_RATE)
				ck_assert(x == 1000.0f);
			else
				ck_assert(x == 0);
			if (!(meta & STORE_FIG_LIVE))
				ck_assert_uint_eq(meta & STORE_FIG_HAS_VALUE,
						  0);
			ck_assert_uint_eq(
			    store_fig_interval_ms(store_fig_stamp(f)), 0);
			float v = store_fig_value(st, i);
			ck_assert(v == floorf(v / 1000) * 1000);
		}
		(*scans)++;
	}
	return NULL;
}

START_TEST(test_lockfree_figures_are_never_torn)
{
	store_label owners[2] = { owner_a, owner_b };
	pthread_t w[2], rd;
	unsigned long scans = 0;

	atomic_store(&ft_done, 0);
	pthread_create(&rd, NULL, ft_reader, &scans);
	for (unsigned i = 0; i < 2; i++)
		pthread_create(&w[i], NULL, ft_writer, &owners[i]);
	for (unsigned i = 0; i < 2; i++)
		pthread_join(w[i], NULL);
	atomic_store(&ft_done, 1);
	pthread_join(rd, NULL);
	ck_assert_uint_gt(scans, 0);
	figures_check_all();
}
END_TEST

/* The port's speed gauge on leaf1/Ethernet0, in bytes/s, owned by b
 * (another collector than the counters': the bound is the port's). */
static store_handle speed_gauge(double bps)
{
	struct store_key k = mkkey(dev, port, FM_C_LINK_SPEED, 0);
	struct store_series_spec sp = { .owner = owner_b };
	store_handle g = store_series(st, &k, &sp);
	ck_assert_uint_ne(g, 0);
	ck_assert_int_eq(store_set_gauge(st, g, bps, T0), 0);
	return g;
}

START_TEST(test_line_rate_bounds_byte_deltas)
{
	/* The counter exists before the speed: the bound still applies. */
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	speed_gauge(12.5e9); /* 100G */

	ck_assert_int_eq(store_update(st, h, 1000, T0), 0);
	/* 1.2 x line rate for a second: within the margin (jitter). */
	ck_assert_int_eq(store_update(st, h, 1000 + 15000000000, T0 + SEC), 0);
	ck_assert(sample(h).has_rate);
	ck_assert_uint_eq(stats().implausible_total, 0);
	/* Another port's counter (an ifIndex renumbering): 1.4e16 bytes
	 * in a second of a 100G port is a discontinuity, not a rate. */
	uint64_t other = UINT64_C(14000000000000000);
	ck_assert_int_eq(store_update(st, h, other, T0 + 2 * SEC), 0);
	struct store_sample s = sample(h);
	ck_assert(!s.has_rate);
	ck_assert_double_eq(s.value, 1000 + 15000000000.0);
	ck_assert_uint_eq(stats().implausible_total, 1);
	ck_assert_uint_eq(stats().resets_total, 1);
	/* From the new base the total goes on without a jump. */
	ck_assert_int_eq(store_update(st, h, other + 1000000, T0 + 3 * SEC), 0);
	s = sample(h);
	ck_assert(s.has_rate);
	ck_assert_double_eq_tol(s.rate, 1e6, 1e-6);
	ck_assert_double_eq(s.value, 1000 + 15000000000.0 + 1000000);
	/* 1.6 x line rate is beyond the margin. */
	ck_assert_int_eq(
	    store_update(st, h, other + 1000000 + 20000000000, T0 + 4 * SEC),
	    0);
	ck_assert(!sample(h).has_rate);
	ck_assert_uint_eq(stats().implausible_total, 2);
}
END_TEST

START_TEST(test_line_rate_bounds_frames_by_minimum_frame)
{
	speed_gauge(12.5e9);
	store_handle h = counter(FM_C_PACKETS_TX, 0, 64, 1, 0);
	store_handle d = counter(FM_C_DISCARDS_TX, 0, 64, 1, 0);
	/* 100G carries 12.5e9 / 84 = 148.8 M frames a second. */
	ck_assert_int_eq(store_update(st, h, 0, T0), 0);
	ck_assert_int_eq(store_update(st, h, 200000000, T0 + SEC), 0);
	ck_assert(sample(h).has_rate); /* 1.34 x: within the margin */
	ck_assert_int_eq(store_update(st, h, 500000000, T0 + 2 * SEC), 0);
	ck_assert(!sample(h).has_rate); /* 2 x: implausible */
	ck_assert_uint_eq(stats().implausible_total, 1);
	/* An egress's discards are not bounded by its line rate (many
	 * ingress ports feed one egress). */
	ck_assert_int_eq(store_update(st, d, 0, T0), 0);
	ck_assert_int_eq(store_update(st, d, 900000000, T0 + SEC), 0);
	ck_assert(sample(d).has_rate);
	ck_assert_uint_eq(stats().implausible_total, 1);
}
END_TEST

START_TEST(test_line_rate_unknown_or_withdrawn_does_not_guard)
{
	store_handle h = counter(FM_C_BYTES_RX, 0, 64, 1, 0);
	ck_assert_int_eq(store_update(st, h, 0, T0), 0);
	ck_assert_int_eq(store_update(st, h, UINT64_C(1) << 60, T0 + SEC), 0);
	ck_assert(sample(h).has_rate); /* no speed: no guard */
	speed_gauge(0);		       /* link down: speed unknown */
	ck_assert_int_eq(store_update(st, h, UINT64_C(1) << 61, T0 + 2 * SEC),
			 0);
	ck_assert(sample(h).has_rate);
	speed_gauge(12.5e9);
	ck_assert_uint_eq(store_withdraw_owner(st, owner_b), 1);
	ck_assert_int_eq(store_update(st, h, UINT64_C(1) << 62, T0 + 3 * SEC),
			 0);
	ck_assert(sample(h).has_rate); /* the speed went with its owner */
	ck_assert_uint_eq(stats().implausible_total, 0);
	/* Another port's speed bounds nothing here. */
	struct store_key k =
	    mkkey(dev, store_intern(st, "Ethernet4"), FM_C_LINK_SPEED, 0);
	struct store_series_spec sp = { .owner = owner_b };
	store_handle g = store_series(st, &k, &sp);
	ck_assert_int_eq(store_set_gauge(st, g, 1e9, T0), 0);
	ck_assert_int_eq(store_update(st, h,
				      (UINT64_C(1) << 62) + (UINT64_C(1) << 50),
				      T0 + 4 * SEC),
			 0);
	ck_assert(sample(h).has_rate);
}
END_TEST

START_TEST(test_line_rate_checks_scaled_counters_and_wraps)
{
	/* A 32-bit counter of 4-byte words on a 1G port (125e6 B/s): a
	 * wrap within the bound is a delta, one beyond it a discontinuity. */
	store_handle h = counter(FM_C_BYTES_TX, 0, 32, 4, 0);
	speed_gauge(125e6);
	ck_assert_int_eq(store_update(st, h, UINT32_MAX - 1000, T0), 0);
	ck_assert_int_eq(store_update(st, h, 10000000, T0 + SEC), 0);
	ck_assert(sample(h).has_rate);
	ck_assert_double_eq_tol(sample(h).rate, 4.0 * (10000000 + 1001), 1e-3);
	/* 100e6 words (400e6 bytes) in a second: over 1.5 x 125e6. */
	ck_assert_int_eq(store_update(st, h, 110000000, T0 + 2 * SEC), 0);
	ck_assert(!sample(h).has_rate);
	ck_assert_uint_eq(stats().implausible_total, 1);
}
END_TEST

static Suite *store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_intern_returns_same_id_for_same_string);
	tcase_add_test(tc, test_intern_keeps_prometheus_escaped_copy);
	tcase_add_test(tc, test_intern_many_labels_keeps_strings_and_ids);
	tcase_add_test(tc, test_series_is_one_record_per_key);
	tcase_add_test(tc, test_invalid_keys_and_specs_are_refused);
	tcase_add_test(tc, test_first_sample_gives_no_rate);
	tcase_add_test(tc, test_rate_uses_source_timestamps);
	tcase_add_test(tc, test_zero_timestamp_uses_injected_real_clock);
	tcase_add_test(tc, test_counter32_wrap_gives_modular_delta);
	tcase_add_test(tc, test_counter32_keeps_raw_modulo_width);
	tcase_add_test(tc, test_counter32_implausible_decrease_is_reset);
	tcase_add_test(tc, test_counter64_decrease_is_reset);
	tcase_add_test(tc, test_max_rate_glitch_is_discontinuity);
	tcase_add_test(tc, test_line_rate_bounds_byte_deltas);
	tcase_add_test(tc, test_line_rate_bounds_frames_by_minimum_frame);
	tcase_add_test(tc, test_line_rate_unknown_or_withdrawn_does_not_guard);
	tcase_add_test(tc, test_line_rate_checks_scaled_counters_and_wraps);
	tcase_add_test(tc, test_marked_discontinuity_rebases_next_sample);
	tcase_add_test(tc, test_owner_discontinuity_rebases_only_that_owner);
	tcase_add_test(tc, test_scale_applies_to_total_and_rate);
	tcase_add_test(tc, test_scaled_totals_are_rounded_once);
	tcase_add_test(tc, test_spec_change_of_scale_rebases);
	tcase_add_test(tc, test_gauge_keeps_scaled_value_without_rate);
	tcase_add_test(tc, test_older_timestamp_is_rejected);
	tcase_add_test(tc, test_equal_timestamp_keeps_raw_without_rate);
	tcase_add_test(tc, test_staleness_follows_monotonic_clock);
	tcase_add_test(tc, test_withdraw_owner_stales_handles_and_reuses_slots);
	tcase_add_test(tc, test_owner_conflict_is_rejected);
	tcase_add_test(tc, test_ring_is_oldest_first_and_wraps);
	tcase_add_test(tc, test_stats_count_series_updates_resets_and_memory);
	tcase_add_test(tc, test_index_survives_growth_and_deletion);
	tcase_add_test(tc, test_figures_follow_samples_resets_and_gauges);
	tcase_add_test(tc, test_figures_change_generation_when_slot_is_reused);
	tcase_add_test(tc, test_figures_agree_with_store_read);
	suite_add_tcase(s, tc);

	TCase *cc = tcase_create("concurrency");
	tcase_add_checked_fixture(cc, setup, teardown);
	/* Sanitizer builds run these several times slower. */
	tcase_set_timeout(cc, 120);
	tcase_add_test(cc, test_intern_is_thread_safe);
	tcase_add_test(cc, test_concurrent_writers_keep_exact_totals);
	tcase_add_test(cc, test_concurrent_reader_sees_consistent_copies);
	tcase_add_test(cc, test_withdraw_while_writing_is_safe);
	tcase_add_test(cc, test_lockfree_figures_are_never_torn);
	suite_add_tcase(s, cc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(store_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
