--
-- PostgreSQL database dump
--

\restrict 50M7NSvefgqoOFdqv03zUBWCXNmgDo2KtHsk0f3oEgxybcZ3VFxKjoVXgq2ogeS

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
-- Name: audit; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit (
    id integer NOT NULL,
    at double precision NOT NULL,
    actor character varying(64) NOT NULL,
    action character varying(32) NOT NULL,
    player_id integer,
    target text NOT NULL,
    detail text NOT NULL
);


--
-- Name: audit_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_id_seq OWNED BY public.audit.id;


--
-- Name: follows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.follows (
    follower_id integer NOT NULL,
    followed_id integer NOT NULL,
    created double precision NOT NULL
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
-- Name: invitations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.invitations (
    id integer NOT NULL,
    at double precision NOT NULL,
    from_id integer NOT NULL,
    to_id integer,
    code_hash character varying(64),
    table_code character varying(16) NOT NULL,
    answered double precision,
    accepted boolean
);


--
-- Name: invitations_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.invitations_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: invitations_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.invitations_id_seq OWNED BY public.invitations.id;


--
-- Name: messages; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.messages (
    id integer NOT NULL,
    at double precision NOT NULL,
    from_id integer NOT NULL,
    to_id integer,
    text text NOT NULL
);


--
-- Name: messages_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.messages_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: messages_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.messages_id_seq OWNED BY public.messages.id;


--
-- Name: meta; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.meta (
    key character varying(64) NOT NULL,
    value text NOT NULL
);


--
-- Name: players; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.players (
    id integer NOT NULL,
    name character varying(64) NOT NULL,
    mu double precision NOT NULL,
    sigma double precision NOT NULL,
    rated_games integer NOT NULL,
    created double precision NOT NULL,
    skeleton text,
    password_hash text,
    password_changed double precision,
    last_seen double precision,
    released double precision,
    released_name character varying(64)
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
-- Name: recovery_codes; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.recovery_codes (
    id integer NOT NULL,
    player_id integer NOT NULL,
    code_hash character varying(64) NOT NULL,
    created double precision NOT NULL,
    used double precision
);


--
-- Name: recovery_codes_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.recovery_codes_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: recovery_codes_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.recovery_codes_id_seq OWNED BY public.recovery_codes.id;


--
-- Name: relations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.relations (
    player_id integer NOT NULL,
    other_id integer NOT NULL,
    kind character varying(8) NOT NULL,
    created double precision NOT NULL
);


--
-- Name: reports; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.reports (
    id integer NOT NULL,
    at double precision NOT NULL,
    reporter_id integer NOT NULL,
    player_id integer NOT NULL,
    message text,
    place character varying(32),
    reason text NOT NULL,
    resolved double precision,
    resolved_by character varying(64),
    resolution text
);


--
-- Name: reports_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.reports_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: reports_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.reports_id_seq OWNED BY public.reports.id;


--
-- Name: sanctions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sanctions (
    id integer NOT NULL,
    kind character varying(16) NOT NULL,
    player_id integer,
    address character varying(64),
    created double precision NOT NULL,
    until double precision,
    lifted double precision,
    reason text NOT NULL,
    by character varying(64) NOT NULL
);


--
-- Name: sanctions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.sanctions_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: sanctions_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.sanctions_id_seq OWNED BY public.sanctions.id;


--
-- Name: sessions; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.sessions (
    id integer NOT NULL,
    player_id integer NOT NULL,
    token_hash character varying(64) NOT NULL,
    created double precision NOT NULL,
    last_seen double precision NOT NULL,
    address character varying(64),
    last_address character varying(64)
);


--
-- Name: sessions_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.sessions_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: sessions_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.sessions_id_seq OWNED BY public.sessions.id;


--
-- Name: signals; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.signals (
    id integer NOT NULL,
    at double precision NOT NULL,
    kind character varying(16) NOT NULL,
    player_id integer,
    session_id integer,
    address character varying(64),
    code character varying(16)
);


--
-- Name: signals_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.signals_id_seq
    AS integer
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: signals_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.signals_id_seq OWNED BY public.signals.id;


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
    created double precision NOT NULL,
    fence bigint DEFAULT '0'::bigint NOT NULL,
    preset character varying(32)
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
-- Name: audit id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit ALTER COLUMN id SET DEFAULT nextval('public.audit_id_seq'::regclass);


--
-- Name: games id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.games ALTER COLUMN id SET DEFAULT nextval('public.games_id_seq'::regclass);


--
-- Name: invitations id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations ALTER COLUMN id SET DEFAULT nextval('public.invitations_id_seq'::regclass);


--
-- Name: messages id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages ALTER COLUMN id SET DEFAULT nextval('public.messages_id_seq'::regclass);


--
-- Name: players id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.players ALTER COLUMN id SET DEFAULT nextval('public.players_id_seq'::regclass);


--
-- Name: recovery_codes id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.recovery_codes ALTER COLUMN id SET DEFAULT nextval('public.recovery_codes_id_seq'::regclass);


--
-- Name: reports id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reports ALTER COLUMN id SET DEFAULT nextval('public.reports_id_seq'::regclass);


--
-- Name: sanctions id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sanctions ALTER COLUMN id SET DEFAULT nextval('public.sanctions_id_seq'::regclass);


--
-- Name: sessions id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions ALTER COLUMN id SET DEFAULT nextval('public.sessions_id_seq'::regclass);


--
-- Name: signals id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signals ALTER COLUMN id SET DEFAULT nextval('public.signals_id_seq'::regclass);


--
-- Name: tables id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tables ALTER COLUMN id SET DEFAULT nextval('public.tables_id_seq'::regclass);


--
-- Data for Name: alembic_version; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.alembic_version (version_num) FROM stdin;
0006
\.


--
-- Data for Name: audit; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.audit (id, at, actor, action, player_id, target, detail) FROM stdin;
\.


--
-- Data for Name: follows; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.follows (follower_id, followed_id, created) FROM stdin;
1	2	1796515796.281747
2	1	1796515796.2863138
\.


--
-- Data for Name: game_players; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.game_players (game_id, seat, player_id, name, total, winner, mu_after) FROM stdin;
1	0	1	Ana	4	t	27.635389493140497
1	1	2	Bo	14	f	22.364610506859503
1	2	\N	Easy Bot 1	11	f	\N
2	0	1	Ana	19	f	24.588690807367627
2	1	2	Bo	14	f	25.411309192632373
2	2	\N	Easy Bot 1	9	t	\N
\.


--
-- Data for Name: games; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.games (id, table_id, game_no, rated, finished, record, ended) FROM stdin;
1	1	1	t	t	{\n  "format": "nimmt-record",\n  "version": 1,\n  "rules": {\n    "preset": "classic",\n    "players": 3,\n    "limit": 66,\n    "end": "rounds",\n    "rounds": 1,\n    "variants": []\n  },\n  "players": ["Ana", "Bo", "Easy Bot 1"],\n  "start_scores": [0, 0, 0],\n  "rounds": [\n    {\n      "round": 1,\n      "deal": {\n        "rows": [\n          [50],\n          [38],\n          [37],\n          [86]\n        ],\n        "hands": [\n          [3, 5, 18, 28, 58, 61, 70, 74, 85, 96],\n          [4, 10, 25, 35, 42, 54, 60, 73, 81, 90],\n          [26, 40, 47, 49, 65, 77, 79, 92, 100, 102]\n        ],\n        "pool": []\n      },\n      "decisions": [\n        ["card", 0, 61],\n        ["card", 1, 4],\n        ["card", 2, 92],\n        ["row", 1, 1],\n        ["card", 2, 26],\n        ["card", 0, 58],\n        ["card", 1, 25],\n        ["card", 1, 10],\n        ["card", 0, 18],\n        ["card", 2, 77],\n        ["row", 1, 2],\n        ["card", 2, 49],\n        ["card", 0, 28],\n        ["card", 1, 81],\n        ["card", 0, 96],\n        ["card", 1, 60],\n        ["card", 2, 40],\n        ["card", 0, 70],\n        ["card", 1, 90],\n        ["card", 2, 79],\n        ["card", 0, 74],\n        ["card", 1, 35],\n        ["card", 2, 102],\n        ["row", 1, 4],\n        ["card", 1, 54],\n        ["card", 0, 5],\n        ["card", 2, 100],\n        ["row", 0, 3],\n        ["card", 1, 73],\n        ["card", 0, 3],\n        ["card", 2, 65],\n        ["row", 0, 4],\n        ["card", 1, 42],\n        ["card", 0, 85],\n        ["card", 2, 47]\n      ],\n      "penalties": [4, 14, 11]\n    }\n  ],\n  "result": {\n    "totals": [4, 14, 11],\n    "winners": [0]\n  },\n  "events_sha256": "88aa37880d0f70bb0390e1db560b67cd7cc18aa0456ff7dd00497b4d7d5b892b"\n}\n	1796515796.0085924
2	2	1	t	t	{\n  "format": "nimmt-record",\n  "version": 1,\n  "rules": {\n    "preset": "classic",\n    "players": 3,\n    "limit": 66,\n    "end": "rounds",\n    "rounds": 1,\n    "variants": []\n  },\n  "players": ["Ana", "Bo", "Easy Bot 1"],\n  "start_scores": [0, 0, 0],\n  "rounds": [\n    {\n      "round": 1,\n      "deal": {\n        "rows": [\n          [21],\n          [54],\n          [48],\n          [61]\n        ],\n        "hands": [\n          [25, 28, 29, 38, 42, 59, 73, 92, 97, 102],\n          [53, 55, 62, 63, 64, 77, 78, 94, 95, 96],\n          [5, 7, 39, 65, 70, 72, 75, 85, 93, 99]\n        ],\n        "pool": []\n      },\n      "decisions": [\n        ["card", 2, 65],\n        ["card", 0, 97],\n        ["card", 1, 94],\n        ["card", 0, 38],\n        ["card", 1, 96],\n        ["card", 2, 99],\n        ["card", 0, 59],\n        ["card", 2, 5],\n        ["card", 1, 62],\n        ["row", 2, 3],\n        ["card", 0, 42],\n        ["card", 1, 78],\n        ["card", 2, 85],\n        ["card", 0, 92],\n        ["card", 1, 63],\n        ["card", 2, 7],\n        ["row", 2, 1],\n        ["card", 2, 70],\n        ["card", 0, 102],\n        ["card", 1, 55],\n        ["card", 1, 53],\n        ["card", 0, 73],\n        ["card", 2, 39],\n        ["row", 2, 4],\n        ["card", 2, 72],\n        ["card", 0, 28],\n        ["card", 1, 64],\n        ["row", 0, 2],\n        ["card", 0, 29],\n        ["card", 1, 95],\n        ["card", 2, 75],\n        ["card", 0, 25],\n        ["card", 1, 77],\n        ["card", 2, 93],\n        ["row", 0, 3]\n      ],\n      "penalties": [19, 14, 9]\n    }\n  ],\n  "result": {\n    "totals": [19, 14, 9],\n    "winners": [2]\n  },\n  "events_sha256": "4fccdf1e28a34230c883d25520288a0d3337e45488120e237db58133add5667e"\n}\n	1796515796.223152
\.


--
-- Data for Name: invitations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.invitations (id, at, from_id, to_id, code_hash, table_code, answered, accepted) FROM stdin;
\.


--
-- Data for Name: messages; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.messages (id, at, from_id, to_id, text) FROM stdin;
1	1796515796.3175552	1	\N	Welcome to the room
2	1796515796.3256536	1	2	A rematch tonight?
\.


--
-- Data for Name: meta; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.meta (key, value) FROM stdin;
\.


--
-- Data for Name: players; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.players (id, name, mu, sigma, rated_games, created, skeleton, password_hash, password_changed, last_seen, released, released_name) FROM stdin;
1	Ana	24.588690807367627	7.82288719288111	2	1796515795.7632947	ana	$argon2id$v=19$m=19456,t=2,p=1$AebBwlvroYEbVIKTb5I77Q$bAUGo1eZXSlRJBo4H3wv1zYSW3e6t1EjagGMD3MpMQ8	1796515796.2687724	1796515796.453617	\N	\N
2	Bo	25.411309192632373	7.82288719288111	2	1796515795.7927816	bo	\N	\N	1796515796.4533262	\N	\N
3	Cy	25	8.333333333333334	0	1796515795.811988	cy	\N	\N	1796515796.4535701	\N	\N
\.


--
-- Data for Name: recovery_codes; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.recovery_codes (id, player_id, code_hash, created, used) FROM stdin;
1	1	550e55c8e29ba69b37746fe23e38cc7c5b9f89f48e65c065cb045945a5ff8974	1796515796.2687724	\N
2	1	198f9927a19735d7d51b76e2dabbf86847184e1958b748984cbebbc826da7015	1796515796.2687724	\N
3	1	5a58eceea0f9c47f6f7374de16615670fbc0b77d6fc543bf4fe1723ac984658e	1796515796.2687724	\N
4	1	a66afd6775ffd0ec1a01ff805b1a6022ee119af04b6a68e2ab384c8498c89eb0	1796515796.2687724	\N
5	1	8a2bcc5b31f1cf2852851207043a765ea46c5f865be000ee1ddc0ec3c77bc703	1796515796.2687724	\N
6	1	f87b9e62257f34b1a3fe63455497374ccf620c4bc0b5d0ced5630f5028914c74	1796515796.2687724	\N
7	1	a447ff0d20f5bbd9ef832dd3167787477cc9117f9dc466a15a563732a7fc3dc9	1796515796.2687724	\N
8	1	a3117490c4e4b1b37b26289145ec993f4c1bf05e9866a6d00655e8e4e9168b93	1796515796.2687724	\N
\.


--
-- Data for Name: relations; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.relations (player_id, other_id, kind, created) FROM stdin;
2	3	block	1796515796.3029807
\.


--
-- Data for Name: reports; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.reports (id, at, reporter_id, player_id, message, place, reason, resolved, resolved_by, resolution) FROM stdin;
1	1796515796.3305538	3	2	\N	\N	a report the operator has not resolved	\N	\N	\N
\.


--
-- Data for Name: sanctions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sanctions (id, kind, player_id, address, created, until, lifted, reason, by) FROM stdin;
\.


--
-- Data for Name: sessions; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.sessions (id, player_id, token_hash, created, last_seen, address, last_address) FROM stdin;
1	1	de516dd109da620d4dbcf62ad7d7ea76520e22ad2291e567096c9a435e256a1a	1796515795.7632947	1796515796.453617	127.0.0.1	127.0.0.1
2	2	49cb55f1e0546c10cfa9a3c28d52ab13ae9b904c99d1a034b07c44100dcec2dc	1796515795.7927816	1796515796.4533262	127.0.0.1	127.0.0.1
3	3	e2e052b7791b27a45d4b5668b87589b6b6a411984f2b6de70349b9c0ef014417	1796515795.811988	1796515796.4535701	127.0.0.1	127.0.0.1
\.


--
-- Data for Name: signals; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.signals (id, at, kind, player_id, session_id, address, code) FROM stdin;
1	1796515796.3135877	social	2	\N	\N	\N
2	1796515796.3216236	lobby	\N	\N	\N	\N
3	1796515796.332542	private	2	\N	\N	\N
\.


--
-- Data for Name: table_log; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.table_log (table_id, n, kind, data) FROM stdin;
1	1	sit	{"seat": 0, "player_id": 1, "name": "Ana"}
1	2	sit	{"seat": 1, "player_id": 2, "name": "Bo"}
1	3	bot	{"seat": 2, "bot": "easy", "name": "Easy Bot 1"}
1	4	start	{"game_no": 1, "deals": [{"rows": [[50], [38], [37], [86]], "hands": [[3, 5, 18, 28, 58, 61, 70, 74, 85, 96], [4, 10, 25, 35, 42, 54, 60, 73, 81, 90], [26, 40, 47, 49, 65, 77, 79, 92, 100, 102]], "pool": []}]}
1	5	decision	{"decision": {"type": "play_card", "player": 0, "card": 61}, "by": "player"}
1	6	decision	{"decision": {"type": "play_card", "player": 1, "card": 4}, "by": "player"}
1	7	decision	{"decision": {"type": "play_card", "player": 2, "card": 92}, "by": "bot"}
1	8	decision	{"decision": {"type": "take_row", "player": 1, "row": 1}, "by": "player"}
1	9	decision	{"decision": {"type": "play_card", "player": 2, "card": 26}, "by": "bot"}
1	10	decision	{"decision": {"type": "play_card", "player": 0, "card": 58}, "by": "player"}
1	11	decision	{"decision": {"type": "play_card", "player": 1, "card": 25}, "by": "player"}
1	12	decision	{"decision": {"type": "play_card", "player": 1, "card": 10}, "by": "player"}
1	13	decision	{"decision": {"type": "play_card", "player": 0, "card": 18}, "by": "player"}
1	14	decision	{"decision": {"type": "play_card", "player": 2, "card": 77}, "by": "bot"}
1	15	decision	{"decision": {"type": "take_row", "player": 1, "row": 2}, "by": "player"}
1	16	decision	{"decision": {"type": "play_card", "player": 2, "card": 49}, "by": "bot"}
1	17	decision	{"decision": {"type": "play_card", "player": 0, "card": 28}, "by": "player"}
1	18	decision	{"decision": {"type": "play_card", "player": 1, "card": 81}, "by": "player"}
1	19	decision	{"decision": {"type": "play_card", "player": 0, "card": 96}, "by": "player"}
1	20	decision	{"decision": {"type": "play_card", "player": 1, "card": 60}, "by": "player"}
1	21	decision	{"decision": {"type": "play_card", "player": 2, "card": 40}, "by": "bot"}
1	22	decision	{"decision": {"type": "play_card", "player": 0, "card": 70}, "by": "player"}
1	23	decision	{"decision": {"type": "play_card", "player": 1, "card": 90}, "by": "player"}
1	24	decision	{"decision": {"type": "play_card", "player": 2, "card": 79}, "by": "bot"}
1	25	decision	{"decision": {"type": "play_card", "player": 0, "card": 74}, "by": "player"}
1	26	decision	{"decision": {"type": "play_card", "player": 1, "card": 35}, "by": "player"}
1	27	decision	{"decision": {"type": "play_card", "player": 2, "card": 102}, "by": "bot"}
1	28	decision	{"decision": {"type": "take_row", "player": 1, "row": 4}, "by": "player"}
1	29	decision	{"decision": {"type": "play_card", "player": 1, "card": 54}, "by": "player"}
1	30	decision	{"decision": {"type": "play_card", "player": 0, "card": 5}, "by": "player"}
1	31	decision	{"decision": {"type": "play_card", "player": 2, "card": 100}, "by": "bot"}
1	32	decision	{"decision": {"type": "take_row", "player": 0, "row": 3}, "by": "player"}
1	33	decision	{"decision": {"type": "play_card", "player": 1, "card": 73}, "by": "player"}
1	34	decision	{"decision": {"type": "play_card", "player": 0, "card": 3}, "by": "player"}
1	35	decision	{"decision": {"type": "play_card", "player": 2, "card": 65}, "by": "bot"}
1	36	decision	{"decision": {"type": "take_row", "player": 0, "row": 4}, "by": "player"}
1	37	decision	{"decision": {"type": "play_card", "player": 1, "card": 42}, "by": "player"}
1	38	decision	{"decision": {"type": "play_card", "player": 0, "card": 85}, "by": "player"}
1	39	decision	{"decision": {"type": "play_card", "player": 2, "card": 47}, "by": "bot"}
1	40	auto	{"seat": 0, "on": true, "reason": "left"}
1	41	host	{"player_id": 2, "name": "Bo"}
1	42	auto	{"seat": 1, "on": true, "reason": "left"}
1	43	close	{}
2	1	sit	{"seat": 0, "player_id": 1, "name": "Ana"}
2	2	sit	{"seat": 1, "player_id": 2, "name": "Bo"}
2	3	bot	{"seat": 2, "bot": "easy", "name": "Easy Bot 1"}
2	4	start	{"game_no": 1, "deals": [{"rows": [[21], [54], [48], [61]], "hands": [[25, 28, 29, 38, 42, 59, 73, 92, 97, 102], [53, 55, 62, 63, 64, 77, 78, 94, 95, 96], [5, 7, 39, 65, 70, 72, 75, 85, 93, 99]], "pool": []}]}
2	5	decision	{"decision": {"type": "play_card", "player": 2, "card": 65}, "by": "bot"}
2	6	decision	{"decision": {"type": "play_card", "player": 0, "card": 97}, "by": "player"}
2	7	decision	{"decision": {"type": "play_card", "player": 1, "card": 94}, "by": "player"}
2	8	decision	{"decision": {"type": "play_card", "player": 0, "card": 38}, "by": "player"}
2	9	decision	{"decision": {"type": "play_card", "player": 1, "card": 96}, "by": "player"}
2	10	decision	{"decision": {"type": "play_card", "player": 2, "card": 99}, "by": "bot"}
2	11	decision	{"decision": {"type": "play_card", "player": 0, "card": 59}, "by": "player"}
2	12	decision	{"decision": {"type": "play_card", "player": 2, "card": 5}, "by": "bot"}
2	13	decision	{"decision": {"type": "play_card", "player": 1, "card": 62}, "by": "player"}
2	14	decision	{"decision": {"type": "take_row", "player": 2, "row": 3}, "by": "bot"}
2	15	decision	{"decision": {"type": "play_card", "player": 0, "card": 42}, "by": "player"}
2	16	decision	{"decision": {"type": "play_card", "player": 1, "card": 78}, "by": "player"}
2	17	decision	{"decision": {"type": "play_card", "player": 2, "card": 85}, "by": "bot"}
2	18	decision	{"decision": {"type": "play_card", "player": 0, "card": 92}, "by": "player"}
2	19	decision	{"decision": {"type": "play_card", "player": 1, "card": 63}, "by": "player"}
2	20	decision	{"decision": {"type": "play_card", "player": 2, "card": 7}, "by": "bot"}
2	21	decision	{"decision": {"type": "take_row", "player": 2, "row": 1}, "by": "bot"}
2	22	decision	{"decision": {"type": "play_card", "player": 2, "card": 70}, "by": "bot"}
2	23	decision	{"decision": {"type": "play_card", "player": 0, "card": 102}, "by": "player"}
2	24	decision	{"decision": {"type": "play_card", "player": 1, "card": 55}, "by": "player"}
2	25	decision	{"decision": {"type": "play_card", "player": 1, "card": 53}, "by": "player"}
2	27	decision	{"decision": {"type": "play_card", "player": 2, "card": 39}, "by": "bot"}
2	29	decision	{"decision": {"type": "play_card", "player": 2, "card": 72}, "by": "bot"}
2	31	decision	{"decision": {"type": "play_card", "player": 1, "card": 64}, "by": "player"}
2	33	decision	{"decision": {"type": "play_card", "player": 0, "card": 29}, "by": "player"}
2	35	decision	{"decision": {"type": "play_card", "player": 2, "card": 75}, "by": "bot"}
2	37	decision	{"decision": {"type": "play_card", "player": 1, "card": 77}, "by": "player"}
2	39	decision	{"decision": {"type": "take_row", "player": 0, "row": 3}, "by": "player"}
2	42	auto	{"seat": 1, "on": true, "reason": "left"}
2	43	close	{}
3	3	bot	{"seat": 2, "bot": "easy", "name": "Easy Bot 1"}
3	5	decision	{"decision": {"type": "play_card", "player": 0, "card": 86}, "by": "player"}
3	7	decision	{"decision": {"type": "play_card", "player": 2, "card": 25}, "by": "bot"}
3	9	decision	{"decision": {"type": "play_card", "player": 0, "card": 85}, "by": "player"}
3	11	decision	{"decision": {"type": "play_card", "player": 2, "card": 84}, "by": "bot"}
3	13	decision	{"decision": {"type": "play_card", "player": 1, "card": 100}, "by": "player"}
3	15	decision	{"decision": {"type": "take_row", "player": 2, "row": 3}, "by": "bot"}
2	26	decision	{"decision": {"type": "play_card", "player": 0, "card": 73}, "by": "player"}
2	28	decision	{"decision": {"type": "take_row", "player": 2, "row": 4}, "by": "bot"}
2	30	decision	{"decision": {"type": "play_card", "player": 0, "card": 28}, "by": "player"}
2	32	decision	{"decision": {"type": "take_row", "player": 0, "row": 2}, "by": "player"}
2	34	decision	{"decision": {"type": "play_card", "player": 1, "card": 95}, "by": "player"}
2	36	decision	{"decision": {"type": "play_card", "player": 0, "card": 25}, "by": "player"}
2	38	decision	{"decision": {"type": "play_card", "player": 2, "card": 93}, "by": "bot"}
2	40	auto	{"seat": 0, "on": true, "reason": "left"}
2	41	host	{"player_id": 2, "name": "Bo"}
3	1	sit	{"seat": 0, "player_id": 1, "name": "Ana"}
3	2	sit	{"seat": 1, "player_id": 3, "name": "Cy"}
3	4	start	{"game_no": 1, "deals": [{"rows": [[82], [11], [92], [89]], "hands": [[27, 32, 37, 42, 43, 62, 63, 75, 85, 86], [2, 3, 15, 24, 30, 70, 71, 83, 91, 100], [4, 7, 21, 25, 51, 60, 66, 69, 84, 90]], "pool": []}]}
3	6	decision	{"decision": {"type": "play_card", "player": 1, "card": 2}, "by": "player"}
3	8	decision	{"decision": {"type": "take_row", "player": 1, "row": 2}, "by": "player"}
3	10	decision	{"decision": {"type": "play_card", "player": 1, "card": 91}, "by": "player"}
3	12	decision	{"decision": {"type": "play_card", "player": 0, "card": 43}, "by": "player"}
3	14	decision	{"decision": {"type": "play_card", "player": 2, "card": 4}, "by": "bot"}
3	16	decision	{"decision": {"type": "play_card", "player": 2, "card": 60}, "by": "bot"}
\.


--
-- Data for Name: tables; Type: TABLE DATA; Schema: public; Owner: -
--

COPY public.tables (id, code, name, host_id, rules, settings, status, created, fence, preset) FROM stdin;
1	WBSQTK	Ana's table	1	{"preset": "classic", "players": 3, "limit": 66, "end": "rounds", "rounds": 1, "variants": []}	{"turn_timer": null, "rated": true, "private": false}	closed	1796515795.8320343	0	classic
2	N2Q372	Ana's table	1	{"preset": "classic", "players": 3, "limit": 66, "end": "rounds", "rounds": 1, "variants": []}	{"turn_timer": null, "rated": true, "private": false}	closed	1796515796.0296342	0	classic
3	23JT5R	Ana's table	1	{"preset": "classic", "players": 3, "limit": 66, "end": "rounds", "rounds": 2, "variants": []}	{"turn_timer": null, "rated": true, "private": false}	playing	1796515796.3370152	0	classic
\.


--
-- Name: audit_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_id_seq', 1, false);


--
-- Name: games_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.games_id_seq', 2, true);


--
-- Name: invitations_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.invitations_id_seq', 1, false);


--
-- Name: messages_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.messages_id_seq', 2, true);


--
-- Name: players_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.players_id_seq', 3, true);


--
-- Name: recovery_codes_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.recovery_codes_id_seq', 8, true);


--
-- Name: reports_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.reports_id_seq', 1, true);


--
-- Name: sanctions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.sanctions_id_seq', 1, false);


--
-- Name: sessions_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.sessions_id_seq', 3, true);


--
-- Name: signals_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.signals_id_seq', 3, true);


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
-- Name: audit audit_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit
    ADD CONSTRAINT audit_pkey PRIMARY KEY (id);


--
-- Name: follows follows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.follows
    ADD CONSTRAINT follows_pkey PRIMARY KEY (follower_id, followed_id);


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
-- Name: invitations invitations_code_hash_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_code_hash_key UNIQUE (code_hash);


--
-- Name: invitations invitations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.invitations
    ADD CONSTRAINT invitations_pkey PRIMARY KEY (id);


--
-- Name: messages messages_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (id);


--
-- Name: meta meta_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.meta
    ADD CONSTRAINT meta_pkey PRIMARY KEY (key);


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
-- Name: recovery_codes recovery_codes_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.recovery_codes
    ADD CONSTRAINT recovery_codes_pkey PRIMARY KEY (id);


--
-- Name: relations relations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.relations
    ADD CONSTRAINT relations_pkey PRIMARY KEY (player_id, other_id, kind);


--
-- Name: reports reports_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.reports
    ADD CONSTRAINT reports_pkey PRIMARY KEY (id);


--
-- Name: sanctions sanctions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sanctions
    ADD CONSTRAINT sanctions_pkey PRIMARY KEY (id);


--
-- Name: sessions sessions_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.sessions
    ADD CONSTRAINT sessions_pkey PRIMARY KEY (id);


--
-- Name: signals signals_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.signals
    ADD CONSTRAINT signals_pkey PRIMARY KEY (id);


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
-- Name: ix_follows_followed_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_follows_followed_id ON public.follows USING btree (followed_id);


--
-- Name: ix_game_players_player_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_game_players_player_id ON public.game_players USING btree (player_id);


--
-- Name: ix_games_table_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_games_table_id ON public.games USING btree (table_id);


--
-- Name: ix_invitations_from_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_invitations_from_id ON public.invitations USING btree (from_id);


--
-- Name: ix_invitations_to_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_invitations_to_id ON public.invitations USING btree (to_id);


--
-- Name: ix_messages_to_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_messages_to_id ON public.messages USING btree (to_id);


--
-- Name: ix_players_last_seen; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_players_last_seen ON public.players USING btree (last_seen);


--
-- Name: ix_players_skeleton; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ix_players_skeleton ON public.players USING btree (skeleton);


--
-- Name: ix_recovery_codes_player_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_recovery_codes_player_id ON public.recovery_codes USING btree (player_id);


--
-- Name: ix_relations_other_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_relations_other_id ON public.relations USING btree (other_id);


--
-- Name: ix_reports_reporter_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_reports_reporter_id ON public.reports USING btree (reporter_id);


--
-- Name: ix_reports_resolved; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_reports_resolved ON public.reports USING btree (resolved);


--
-- Name: ix_sanctions_lifted; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sanctions_lifted ON public.sanctions USING btree (lifted);


--
-- Name: ix_sessions_player_id; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_sessions_player_id ON public.sessions USING btree (player_id);


--
-- Name: ix_sessions_token_hash; Type: INDEX; Schema: public; Owner: -
--

CREATE UNIQUE INDEX ix_sessions_token_hash ON public.sessions USING btree (token_hash);


--
-- Name: ix_tables_preset; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_tables_preset ON public.tables USING btree (preset);


--
-- Name: ix_tables_status; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX ix_tables_status ON public.tables USING btree (status);


--
-- PostgreSQL database dump complete
--

\unrestrict 50M7NSvefgqoOFdqv03zUBWCXNmgDo2KtHsk0f3oEgxybcZ3VFxKjoVXgq2ogeS

