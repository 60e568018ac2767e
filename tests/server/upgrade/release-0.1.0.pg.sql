--
-- PostgreSQL database dump
--

\restrict W0UwKiEkiyoEiv2IMGknRZi8FCNfjbdhRfOu6KZASlfThzeVeSksPnSBW1FGcM2

-- Dumped from database version 15.20 (Debian 15.20-0+deb12u1)
-- Dumped by pg_dump version 15.20 (Debian 15.20-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: alembic_version; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.alembic_version (
    version_num character varying(32) NOT NULL
);


--
-- Name: game_players; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.game_players (
    game_id integer NOT NULL,
    seat integer NOT NULL,
    player_id integer,
    name character varying(64) NOT NULL,
    total integer NOT NULL,
    winner boolean NOT NULL,
    mu_after double precision
);


--
-- Name: games; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.games (
    id integer NOT NULL,
    table_id integer NOT NULL,
    game_no integer NOT NULL,
    rated boolean NOT NULL,
    finished boolean NOT NULL,
    record text NOT NULL,
    ended double precision NOT NULL
);


--
-- Name: games_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.games_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: games_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.games_id_seq OWNED BY public.games.id;


--
-- Name: players; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.players (
    id integer NOT NULL,
    name character varying(64) NOT NULL,
    token_hash character varying(64) NOT NULL,
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    rated_games integer NOT NULL,
    created double precision NOT NULL,
    skeleton text
);


--
-- Name: players_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.players_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: players_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.players_id_seq OWNED BY public.players.id;


--
-- Name: table_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.table_log (
    table_id integer NOT NULL,
    n integer NOT NULL,
    kind character varying(16) NOT NULL,
    data text NOT NULL
);


--
-- Name: tables; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tables (
    id integer NOT NULL,
    code character varying(16) NOT NULL,
    name character varying(64) NOT NULL,
    host_id integer NOT NULL,
    rules text NOT NULL,
    settings text NOT NULL,
    status character varying(16) NOT NULL,
    created double precision NOT NULL
);


--
-- Name: tables_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.tables_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: tables_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.tables_id_seq OWNED BY public.tables.id;


--
-- Name: games id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.games ALTER COLUMN id SET DEFAULT nextval('public.games_id_seq'::regclass);


--
-- Name: players id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.players ALTER COLUMN id SET DEFAULT nextval('public.players_id_seq'::regclass);


--
-- Name: tables id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tables ALTER COLUMN id SET DEFAULT nextval('public.tables_id_seq'::regclass);


--
-- Data for Name: alembic_version; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.alembic_version (version_num) FROM stdin;
0002
\.


--
-- Data for Name: game_players; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.game_players (game_id, seat, player_id, name, total, winner, mu_after) FROM stdin;
1	0	1	Ana	7	t	27.635389493140497
1	1	2	Bo	10	f	22.364610506859503
1	2	\N	easy bot 1	22	f	\N
2	0	1	Ana	8	f	29.656297488526157
2	1	2	Bo	14	f	20.343702511473843
2	2	\N	easy bot 1	7	t	\N
\.


--
-- Data for Name: games; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.games (id, table_id, game_no, rated, finished, record, ended) FROM stdin;
1	1	1	t	t	{\n  "format": "nimmt-record",\n  "version": 1,\n  "rules": {\n    "preset": "classic",\n    "players": 3,\n    "limit": 66,\n    "end": "rounds",\n    "rounds": 1,\n    "variants": []\n  },\n  "players": ["Ana", "Bo", "easy bot 1"],\n  "start_scores": [0, 0, 0],\n  "rounds": [\n    {\n      "round": 1,\n      "deal": {\n        "rows": [\n          [76],\n          [87],\n          [36],\n          [72]\n        ],\n        "hands": [\n          [2, 9, 15, 25, 42, 48, 50, 64, 86, 100],\n          [22, 24, 26, 29, 32, 43, 47, 52, 90, 103],\n          [5, 10, 11, 27, 28, 51, 58, 65, 88, 91]\n        ],\n        "pool": []\n      },\n      "decisions": [\n        ["card", 0, 48],\n        ["card", 1, 22],\n        ["card", 2, 65],\n        ["row", 1, 1],\n        ["card", 1, 43],\n        ["card", 0, 9],\n        ["card", 2, 5],\n        ["row", 2, 2],\n        ["card", 0, 2],\n        ["card", 1, 29],\n        ["card", 2, 51],\n        ["row", 0, 2],\n        ["card", 2, 27],\n        ["card", 1, 32],\n        ["card", 0, 86],\n        ["row", 2, 4],\n        ["card", 1, 103],\n        ["card", 0, 50],\n        ["card", 2, 10],\n        ["row", 2, 4],\n        ["card", 0, 42],\n        ["card", 2, 58],\n        ["card", 1, 90],\n        ["card", 1, 47],\n        ["card", 0, 15],\n        ["card", 2, 91],\n        ["row", 0, 4],\n        ["card", 1, 26],\n        ["card", 0, 64],\n        ["card", 2, 88],\n        ["row", 1, 3],\n        ["card", 0, 100],\n        ["card", 1, 24],\n        ["card", 2, 28],\n        ["row", 1, 4],\n        ["card", 2, 11],\n        ["card", 1, 52],\n        ["card", 0, 25],\n        ["row", 2, 4]\n      ],\n      "penalties": [7, 10, 22]\n    }\n  ],\n  "result": {\n    "totals": [7, 10, 22],\n    "winners": [0]\n  },\n  "events_sha256": "a0dee25d5ecb7962daefad523d3c5fd5c3bf580908523aff908509408ab8510a"\n}\n	1796515708.6135042
2	2	1	t	t	{\n  "format": "nimmt-record",\n  "version": 1,\n  "rules": {\n    "preset": "classic",\n    "players": 3,\n    "limit": 66,\n    "end": "rounds",\n    "rounds": 1,\n    "variants": []\n  },\n  "players": ["Ana", "Bo", "easy bot 1"],\n  "start_scores": [0, 0, 0],\n  "rounds": [\n    {\n      "round": 1,\n      "deal": {\n        "rows": [\n          [20],\n          [10],\n          [15],\n          [62]\n        ],\n        "hands": [\n          [8, 9, 11, 23, 25, 31, 57, 60, 61, 83],\n          [5, 12, 14, 18, 36, 69, 71, 74, 77, 99],\n          [3, 4, 16, 17, 40, 50, 67, 81, 101, 104]\n        ],\n        "pool": []\n      },\n      "decisions": [\n        ["card", 2, 17],\n        ["card", 0, 61],\n        ["card", 1, 74],\n        ["card", 2, 104],\n        ["card", 0, 23],\n        ["card", 1, 99],\n        ["card", 0, 31],\n        ["card", 1, 14],\n        ["card", 2, 3],\n        ["row", 2, 2],\n        ["card", 0, 25],\n        ["card", 1, 71],\n        ["card", 2, 81],\n        ["card", 0, 60],\n        ["card", 1, 18],\n        ["card", 2, 4],\n        ["row", 2, 2],\n        ["card", 0, 83],\n        ["card", 1, 12],\n        ["card", 2, 40],\n        ["row", 1, 1],\n        ["card", 0, 57],\n        ["card", 1, 77],\n        ["card", 2, 16],\n        ["card", 0, 8],\n        ["card", 1, 5],\n        ["card", 2, 50],\n        ["row", 1, 4],\n        ["card", 1, 69],\n        ["card", 0, 9],\n        ["card", 2, 67],\n        ["card", 0, 11],\n        ["card", 1, 36],\n        ["card", 2, 101]\n      ],\n      "penalties": [8, 14, 7]\n    }\n  ],\n  "result": {\n    "totals": [8, 14, 7],\n    "winners": [2]\n  },\n  "events_sha256": "a8ad9f453f72e1819a3fdea7ef1f9fb45fb425e87a471f4f774fa94877edfa3e"\n}\n	1796515708.7801557
\.


--
-- Data for Name: players; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.players (id, name, token_hash, mu, sigma, rated_games, created, skeleton) FROM stdin;
3	Cy	8a0ec0474ed3757aad30b55f6d49489d9ae3715df735bad02ffcd93e2f52eebf	25	8.333333333333334	0	1796515708.3413517	cy
1	Ana	8951952c1c19513e17e1ffaa809f369d6067283d6735813284485d0613d6efc1	29.656297488526157	7.82288719288111	2	1796515708.304834	ana
2	Bo	b9428c44f69c07e183b2fd363665982ce3e6ceccec289445f01599e2fbcfd21b	20.343702511473843	7.82288719288111	2	1796515708.3215823	bo
\.


--
-- Data for Name: table_log; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.table_log (table_id, n, kind, data) FROM stdin;
1	1	sit	{"seat": 0, "player_id": 1, "name": "Ana"}
1	2	sit	{"seat": 1, "player_id": 2, "name": "Bo"}
1	3	bot	{"seat": 2, "bot": "easy", "name": "easy bot 1"}
1	4	start	{"game_no": 1, "deals": [{"rows": [[76], [87], [36], [72]], "hands": [[2, 9, 15, 25, 42, 48, 50, 64, 86, 100], [22, 24, 26, 29, 32, 43, 47, 52, 90, 103], [5, 10, 11, 27, 28, 51, 58, 65, 88, 91]], "pool": []}]}
1	5	decision	{"seat": 0, "kind": "card", "value": 48, "by": "player"}
1	6	decision	{"seat": 1, "kind": "card", "value": 22, "by": "player"}
1	7	decision	{"seat": 2, "kind": "card", "value": 65, "by": "bot"}
1	8	decision	{"seat": 1, "kind": "row", "value": 1, "by": "player"}
1	9	decision	{"seat": 1, "kind": "card", "value": 43, "by": "player"}
1	10	decision	{"seat": 0, "kind": "card", "value": 9, "by": "player"}
1	11	decision	{"seat": 2, "kind": "card", "value": 5, "by": "bot"}
1	12	decision	{"seat": 2, "kind": "row", "value": 2, "by": "bot"}
1	13	decision	{"seat": 0, "kind": "card", "value": 2, "by": "player"}
1	14	decision	{"seat": 1, "kind": "card", "value": 29, "by": "player"}
1	15	decision	{"seat": 2, "kind": "card", "value": 51, "by": "bot"}
1	16	decision	{"seat": 0, "kind": "row", "value": 2, "by": "player"}
1	17	decision	{"seat": 2, "kind": "card", "value": 27, "by": "bot"}
1	18	decision	{"seat": 1, "kind": "card", "value": 32, "by": "player"}
1	19	decision	{"seat": 0, "kind": "card", "value": 86, "by": "player"}
1	20	decision	{"seat": 2, "kind": "row", "value": 4, "by": "bot"}
1	21	decision	{"seat": 1, "kind": "card", "value": 103, "by": "player"}
1	22	decision	{"seat": 0, "kind": "card", "value": 50, "by": "player"}
1	23	decision	{"seat": 2, "kind": "card", "value": 10, "by": "bot"}
1	24	decision	{"seat": 2, "kind": "row", "value": 4, "by": "bot"}
1	25	decision	{"seat": 0, "kind": "card", "value": 42, "by": "player"}
1	26	decision	{"seat": 2, "kind": "card", "value": 58, "by": "bot"}
1	27	decision	{"seat": 1, "kind": "card", "value": 90, "by": "player"}
1	28	decision	{"seat": 1, "kind": "card", "value": 47, "by": "player"}
1	29	decision	{"seat": 0, "kind": "card", "value": 15, "by": "player"}
1	30	decision	{"seat": 2, "kind": "card", "value": 91, "by": "bot"}
1	31	decision	{"seat": 0, "kind": "row", "value": 4, "by": "player"}
1	32	decision	{"seat": 1, "kind": "card", "value": 26, "by": "player"}
1	33	decision	{"seat": 0, "kind": "card", "value": 64, "by": "player"}
1	34	decision	{"seat": 2, "kind": "card", "value": 88, "by": "bot"}
1	35	decision	{"seat": 1, "kind": "row", "value": 3, "by": "player"}
1	36	decision	{"seat": 0, "kind": "card", "value": 100, "by": "player"}
1	37	decision	{"seat": 1, "kind": "card", "value": 24, "by": "player"}
1	38	decision	{"seat": 2, "kind": "card", "value": 28, "by": "bot"}
1	39	decision	{"seat": 1, "kind": "row", "value": 4, "by": "player"}
1	40	decision	{"seat": 2, "kind": "card", "value": 11, "by": "bot"}
1	41	decision	{"seat": 1, "kind": "card", "value": 52, "by": "player"}
1	42	decision	{"seat": 0, "kind": "card", "value": 25, "by": "player"}
1	43	decision	{"seat": 2, "kind": "row", "value": 4, "by": "bot"}
1	44	auto	{"seat": 0, "on": true, "reason": "left"}
1	45	host	{"player_id": 2, "name": "Bo"}
1	46	auto	{"seat": 1, "on": true, "reason": "left"}
1	47	close	{}
2	1	sit	{"seat": 0, "player_id": 1, "name": "Ana"}
2	2	sit	{"seat": 1, "player_id": 2, "name": "Bo"}
2	3	bot	{"seat": 2, "bot": "easy", "name": "easy bot 1"}
2	4	start	{"game_no": 1, "deals": [{"rows": [[20], [10], [15], [62]], "hands": [[8, 9, 11, 23, 25, 31, 57, 60, 61, 83], [5, 12, 14, 18, 36, 69, 71, 74, 77, 99], [3, 4, 16, 17, 40, 50, 67, 81, 101, 104]], "pool": []}]}
2	5	decision	{"seat": 2, "kind": "card", "value": 17, "by": "bot"}
2	6	decision	{"seat": 0, "kind": "card", "value": 61, "by": "player"}
2	7	decision	{"seat": 1, "kind": "card", "value": 74, "by": "player"}
2	8	decision	{"seat": 2, "kind": "card", "value": 104, "by": "bot"}
2	9	decision	{"seat": 0, "kind": "card", "value": 23, "by": "player"}
2	10	decision	{"seat": 1, "kind": "card", "value": 99, "by": "player"}
2	11	decision	{"seat": 0, "kind": "card", "value": 31, "by": "player"}
2	12	decision	{"seat": 1, "kind": "card", "value": 14, "by": "player"}
2	13	decision	{"seat": 2, "kind": "card", "value": 3, "by": "bot"}
2	14	decision	{"seat": 2, "kind": "row", "value": 2, "by": "bot"}
2	15	decision	{"seat": 0, "kind": "card", "value": 25, "by": "player"}
2	16	decision	{"seat": 1, "kind": "card", "value": 71, "by": "player"}
2	17	decision	{"seat": 2, "kind": "card", "value": 81, "by": "bot"}
2	18	decision	{"seat": 0, "kind": "card", "value": 60, "by": "player"}
2	19	decision	{"seat": 1, "kind": "card", "value": 18, "by": "player"}
2	20	decision	{"seat": 2, "kind": "card", "value": 4, "by": "bot"}
2	21	decision	{"seat": 2, "kind": "row", "value": 2, "by": "bot"}
2	22	decision	{"seat": 0, "kind": "card", "value": 83, "by": "player"}
2	23	decision	{"seat": 1, "kind": "card", "value": 12, "by": "player"}
2	24	decision	{"seat": 2, "kind": "card", "value": 40, "by": "bot"}
2	25	decision	{"seat": 1, "kind": "row", "value": 1, "by": "player"}
2	26	decision	{"seat": 0, "kind": "card", "value": 57, "by": "player"}
2	27	decision	{"seat": 1, "kind": "card", "value": 77, "by": "player"}
2	28	decision	{"seat": 2, "kind": "card", "value": 16, "by": "bot"}
2	29	decision	{"seat": 0, "kind": "card", "value": 8, "by": "player"}
2	30	decision	{"seat": 1, "kind": "card", "value": 5, "by": "player"}
2	31	decision	{"seat": 2, "kind": "card", "value": 50, "by": "bot"}
2	32	decision	{"seat": 1, "kind": "row", "value": 4, "by": "player"}
2	33	decision	{"seat": 1, "kind": "card", "value": 69, "by": "player"}
2	34	decision	{"seat": 0, "kind": "card", "value": 9, "by": "player"}
2	35	decision	{"seat": 2, "kind": "card", "value": 67, "by": "bot"}
2	36	decision	{"seat": 0, "kind": "card", "value": 11, "by": "player"}
2	37	decision	{"seat": 1, "kind": "card", "value": 36, "by": "player"}
2	38	decision	{"seat": 2, "kind": "card", "value": 101, "by": "bot"}
2	39	auto	{"seat": 0, "on": true, "reason": "left"}
2	40	host	{"player_id": 2, "name": "Bo"}
2	41	auto	{"seat": 1, "on": true, "reason": "left"}
2	42	close	{}
3	1	sit	{"seat": 0, "player_id": 1, "name": "Ana"}
3	2	sit	{"seat": 1, "player_id": 3, "name": "Cy"}
3	3	bot	{"seat": 2, "bot": "easy", "name": "easy bot 1"}
3	4	start	{"game_no": 1, "deals": [{"rows": [[100], [98], [71], [94]], "hands": [[17, 41, 56, 59, 62, 67, 76, 86, 90, 99], [7, 11, 40, 44, 50, 65, 72, 77, 79, 92], [18, 20, 22, 28, 57, 78, 81, 83, 96, 97]], "pool": []}]}
3	5	decision	{"seat": 0, "kind": "card", "value": 99, "by": "player"}
3	6	decision	{"seat": 1, "kind": "card", "value": 7, "by": "player"}
3	7	decision	{"seat": 2, "kind": "card", "value": 28, "by": "bot"}
3	8	decision	{"seat": 1, "kind": "row", "value": 2, "by": "player"}
3	9	decision	{"seat": 1, "kind": "card", "value": 92, "by": "player"}
3	10	decision	{"seat": 0, "kind": "card", "value": 86, "by": "player"}
3	11	decision	{"seat": 2, "kind": "card", "value": 96, "by": "bot"}
3	12	decision	{"seat": 0, "kind": "card", "value": 62, "by": "player"}
3	13	decision	{"seat": 1, "kind": "card", "value": 79, "by": "player"}
3	14	decision	{"seat": 2, "kind": "card", "value": 18, "by": "bot"}
3	15	decision	{"seat": 2, "kind": "row", "value": 2, "by": "bot"}
3	16	decision	{"seat": 2, "kind": "card", "value": 78, "by": "bot"}
\.


--
-- Data for Name: tables; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tables (id, code, name, host_id, rules, settings, status, created) FROM stdin;
1	RAFPVU	Ana's table	1	{"preset": "classic", "players": 3, "limit": 66, "end": "rounds", "rounds": 1, "variants": []}	{"turn_timer": null, "rated": true, "private": false}	closed	1796515708.3497217
2	Z232TV	Ana's table	1	{"preset": "classic", "players": 3, "limit": 66, "end": "rounds", "rounds": 1, "variants": []}	{"turn_timer": null, "rated": true, "private": false}	closed	1796515708.6381128
3	SSNJQT	Ana's table	1	{"preset": "classic", "players": 3, "limit": 66, "end": "rounds", "rounds": 2, "variants": []}	{"turn_timer": null, "rated": true, "private": false}	playing	1796515708.8052678
\.


--
-- Name: games_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.games_id_seq', 2, true);


--
-- Name: players_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.players_id_seq', 3, true);


--
-- Name: tables_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.tables_id_seq', 3, true);


--
-- Name: alembic_version alembic_version_pkc; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.alembic_version
    ADD CONSTRAINT alembic_version_pkc PRIMARY KEY (version_num);


--
-- Name: game_players game_players_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.game_players
    ADD CONSTRAINT game_players_pkey PRIMARY KEY (game_id, seat);


--
-- Name: games games_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.games
    ADD CONSTRAINT games_pkey PRIMARY KEY (id);


--
-- Name: players players_name_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.players
    ADD CONSTRAINT players_name_key UNIQUE (name);


--
-- Name: players players_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.players
    ADD CONSTRAINT players_pkey PRIMARY KEY (id);


--
-- Name: players players_token_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.players
    ADD CONSTRAINT players_token_hash_key UNIQUE (token_hash);


--
-- Name: table_log table_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.table_log
    ADD CONSTRAINT table_log_pkey PRIMARY KEY (table_id, n);


--
-- Name: tables tables_code_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tables
    ADD CONSTRAINT tables_code_key UNIQUE (code);


--
-- Name: tables tables_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tables
    ADD CONSTRAINT tables_pkey PRIMARY KEY (id);


--
-- Name: ix_game_players_player_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_game_players_player_id ON public.game_players USING btree (player_id);


--
-- Name: ix_games_table_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_games_table_id ON public.games USING btree (table_id);


--
-- Name: ix_players_skeleton; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ix_players_skeleton ON public.players USING btree (skeleton);


--
-- Name: ix_tables_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_tables_status ON public.tables USING btree (status);


--
-- PostgreSQL database dump complete
--

\unrestrict W0UwKiEkiyoEiv2IMGknRZi8FCNfjbdhRfOu6KZASlfThzeVeSksPnSBW1FGcM2

