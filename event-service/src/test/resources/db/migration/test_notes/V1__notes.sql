-- A module of the tests only (ModuleMigrationsTest): its V1 shares its version with events' V1.
create table note (
    id    varchar(64)  not null primary key,
    text  varchar(255) not null
);
