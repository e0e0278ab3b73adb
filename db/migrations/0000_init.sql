CREATE TABLE `answers` (
	`model` text NOT NULL,
	`question_id` integer NOT NULL,
	`turns` text NOT NULL,
	`answer_id` text,
	`source` text NOT NULL,
	PRIMARY KEY(`model`, `question_id`)
);
--> statement-breakpoint
CREATE TABLE `attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`game_id` text NOT NULL,
	`judge` text NOT NULL,
	`error` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `games` (
	`id` text PRIMARY KEY NOT NULL,
	`run_id` text,
	`judge` text NOT NULL,
	`judge_settings` text NOT NULL,
	`prompt_name` text NOT NULL,
	`question_id` integer NOT NULL,
	`category` text NOT NULL,
	`turn` integer NOT NULL,
	`model_1` text NOT NULL,
	`model_2` text,
	`order` text NOT NULL,
	`system_prompt` text NOT NULL,
	`user_prompt` text NOT NULL,
	`reply` text NOT NULL,
	`verdict` text NOT NULL,
	`parser` text NOT NULL,
	`tokens_in` integer,
	`tokens_out` integer,
	`latency_ms` real,
	`created_at` integer NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `games_judge` ON `games` (`judge`,`question_id`,`turn`);--> statement-breakpoint
CREATE TABLE `prompts` (
	`name` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`system_prompt` text NOT NULL,
	`prompt_template` text NOT NULL,
	`output_format` text NOT NULL,
	`category` text,
	`description` text
);
--> statement-breakpoint
CREATE TABLE `questions` (
	`id` integer PRIMARY KEY NOT NULL,
	`category` text NOT NULL,
	`turns` text NOT NULL,
	`reference` text,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `reference_answers` (
	`source` text NOT NULL,
	`question_id` integer NOT NULL,
	`turns` text NOT NULL,
	PRIMARY KEY(`source`, `question_id`)
);
--> statement-breakpoint
CREATE TABLE `runs` (
	`id` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`judge` text NOT NULL,
	`mode` text NOT NULL,
	`config` text NOT NULL,
	`planned` integer NOT NULL,
	`to_play` integer NOT NULL,
	`played` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`tokens_in` integer DEFAULT 0 NOT NULL,
	`tokens_out` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `votes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`judge` text NOT NULL,
	`voter` text NOT NULL,
	`question_id` integer NOT NULL,
	`turn` integer NOT NULL,
	`model_a` text NOT NULL,
	`model_b` text NOT NULL,
	`winner` text NOT NULL,
	`source` text NOT NULL,
	`line` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `votes_judge` ON `votes` (`judge`);--> statement-breakpoint
CREATE UNIQUE INDEX `votes_source_line` ON `votes` (`source`,`line`);