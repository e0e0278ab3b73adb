CREATE TABLE `published_copy` (
	`source` text NOT NULL,
	`published_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `annotators` ADD `session_hash` text;