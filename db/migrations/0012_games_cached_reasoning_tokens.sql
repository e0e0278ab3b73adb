ALTER TABLE `games` ADD `tokens_cached` integer;--> statement-breakpoint
ALTER TABLE `games` ADD `tokens_reasoning` integer;