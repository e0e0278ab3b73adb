CREATE TABLE `batches` (
	`id` text PRIMARY KEY NOT NULL,
	`refresh_id` text,
	`judge` text NOT NULL,
	`input_file_id` text NOT NULL,
	`status` text NOT NULL,
	`game_ids` text NOT NULL,
	`created_at` integer NOT NULL,
	`finished_at` integer,
	`cost` real
);
--> statement-breakpoint
CREATE TABLE `checkpoints` (
	`series` text NOT NULL,
	`name` text NOT NULL,
	`step` integer NOT NULL,
	`model` text NOT NULL,
	`generation` text NOT NULL,
	PRIMARY KEY(`series`, `name`)
);
--> statement-breakpoint
CREATE TABLE `refreshes` (
	`id` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`status` text NOT NULL,
	`config` text NOT NULL,
	`summary` text NOT NULL,
	`degraded` text,
	`cost` real DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE `games` ADD `cost` real;--> statement-breakpoint
ALTER TABLE `runs` ADD `cost` real;